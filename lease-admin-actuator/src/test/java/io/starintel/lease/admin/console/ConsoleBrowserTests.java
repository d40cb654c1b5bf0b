package io.starintel.lease.admin.console;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import io.starintel.lease.audit.redis.RedisStreamAuditSink;
import io.starintel.lease.core.ProgramScope;
import io.starintel.lease.fence.FenceOutcome;
import io.starintel.lease.context.LeaseContext;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.NoSuchElementException;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.FluentWait;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.security.crypto.bcrypt.BCryptPasswordEncoder;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The operator console in a real browser: headless Chromium driven by Selenium ({@code /usr/bin/chromedriver}, installed
 * by {@code scripts/services.sh}) against the application on a random port with the real auto-configuration chain
 * and real Redis. An operator sees a running job's lease with its live countdown and no admin buttons; an
 * administrator revokes it with a reason, watches it disappear, and sees the job's refused fenced write in the lease's
 * audit events and in fencing health; a worker sees no revoke button; forged writes (no CSRF token, foreign origin)
 * are refused. Screenshots of the main states go to {@code target/console-screenshots/} (and {@code docs/console/}
 * with {@code -Dstarintel.console.screenshots=docs}).
 *
 * <p>Without Chromium the class is skipped with a reason, except under {@code CI=true}, where it fails.
 */
@SpringBootTest(classes = ConsoleTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "starintel.lease.tenant=" + ConsoleBrowserTests.TENANT,
				"starintel.lease.owner.service-principal=prn_console_job", "logging.level.io.starintel.lease=WARN" })
class ConsoleBrowserTests {

	static final String TENANT = "tenant-console";

	static final String PROGRAM = "p-console-" + UUID.randomUUID().toString().substring(0, 8);

	static final String ADMIN_SECRET = "pw-admin-" + UUID.randomUUID();

	static final String OPERATOR_SECRET = "pw-operator-" + UUID.randomUUID();

	static final String WORKER_SECRET = "pw-worker-" + UUID.randomUUID();

	static final Path CHROMIUM = Path.of("/usr/bin/chromium");

	static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");

	static final Duration WAIT = Duration.ofSeconds(30);

	@DynamicPropertySource
	static void properties(DynamicPropertyRegistry registry) {
		BCryptPasswordEncoder bcrypt = new BCryptPasswordEncoder(4);
		registry.add("starintel.lease.program", () -> PROGRAM);
		credential(registry, 0, "prn_admin_alice", "key_admin_alice", bcrypt.encode(ADMIN_SECRET), "administrator",
				"targets:read,targets:force-release,targets:revoke");
		credential(registry, 1, "prn_operator_olga", "key_operator_olga", bcrypt.encode(OPERATOR_SECRET), "operator",
				"targets:read");
		credential(registry, 2, "prn_worker_usernamegen", "key_worker_01", bcrypt.encode(WORKER_SECRET), "worker",
				"targets:read");
	}

	private static void credential(DynamicPropertyRegistry registry, int i, String principal, String id,
			String hash, String kind, String capabilities) {
		String p = "starintel.lease.admin.credentials[" + i + "].";
		registry.add(p + "principal", () -> principal);
		registry.add(p + "credential-id", () -> id);
		registry.add(p + "secret-hash", () -> "{bcrypt}" + hash);
		registry.add(p + "kind", () -> kind);
		registry.add(p + "capabilities", () -> capabilities);
		registry.add(p + "tenant", () -> TENANT);
		registry.add(p + "programs", () -> PROGRAM);
	}

	static WebDriver driver;

	static final ExecutorService jobs = Executors.newCachedThreadPool();

	@LocalServerPort
	int port;

	@Autowired
	ConsoleTestApplication.StuckJob job;

	final List<ConsoleTestApplication.Run> runs = new ArrayList<>();

	@BeforeAll
	static void startBrowser(@TempDir Path profile) {
		boolean present = Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER);
		if (!present && "true".equals(System.getenv("CI"))) {
			throw new AssertionError("CI=true but " + CHROMIUM + " or " + CHROMEDRIVER
					+ " is missing: scripts/services.sh installs them (apt-get install chromium chromium-driver)");
		}
		assumeTrue(present, "no " + CHROMIUM + " / " + CHROMEDRIVER + ": run scripts/services.sh to install them");
		ChromeOptions options = new ChromeOptions();
		options.setBinary(CHROMIUM.toString());
		options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
				"--disable-background-networking", "--disable-component-update", "--disable-sync",
				"--user-data-dir=" + profile.resolve("chromium"), "--window-size=1280,800",
				"--force-device-scale-factor=1", "--lang=en-US");
		ChromeDriverService service = new ChromeDriverService.Builder()
			.usingDriverExecutable(CHROMEDRIVER.toFile())
			.usingAnyFreePort()
			.build();
		driver = new ChromeDriver(service, options);
		driver.manage().timeouts().scriptTimeout(WAIT);
	}

	@AfterAll
	static void stopBrowser(@Autowired StringRedisTemplate redis) {
		if (driver != null) {
			driver.quit();
		}
		jobs.shutdownNow();
		ProgramScope scope = new ProgramScope(TENANT, PROGRAM);
		redis.delete(List.of(RedisStreamAuditSink.streamKey(scope), RedisStreamAuditSink.routineStreamKey(scope)));
	}

	@BeforeEach
	void freshSession() {
		driver.manage().window().setSize(new Dimension(1280, 800));
		driver.get(console("/login"));
		driver.manage().deleteAllCookies();
	}

	@AfterEach
	void finishJobs() throws Exception {
		for (ConsoleTestApplication.Run run : this.runs) {
			run.commit().countDown();
		}
	}

	// ---------------------------------------------------------------- the tests

	@Test
	void operatorWatchesAdministratorRevokesAndTheRejectedCommitAppears() throws Exception {
		ConsoleTestApplication.Run run = new ConsoleTestApplication.Run("t-stuck-" + shortId());
		Future<?> running = start(run);
		LeaseContext lease = run.awaitStarted(running);

		// operator: the running job's lease with a live countdown, and no admin buttons
		driver.get(console("/"));
		assertThat(driver.getCurrentUrl()).endsWith("/targetleases-console/login");
		screenshot("login");
		signIn("key_operator_olga", OPERATOR_SECRET);
		leaseRow(lease.leaseId());
		assertThat(text(rowOf(lease.leaseId()))).contains("starintel-target/" + run.target(), "prn_console_job",
				Long.toString(lease.fencingToken()), "active");
		int first = countdown(lease.leaseId());
		assertThat(first).isBetween(1, 30);
		waitUntil("the countdown ticks", () -> countdown(lease.leaseId()) < first);
		assertThat(driver.findElements(By.cssSelector("#leases button.revoke, #leases button.force-release"))).isEmpty();
		assertThat(text(By.id("caller"))).contains("prn_operator_olga", "operator");
		screenshot("operator-leases");
		signOut();

		// administrator: revoke with a reason, after a confirmation
		signIn("key_admin_alice", ADMIN_SECRET);
		leaseRow(lease.leaseId());
		assertNoSecretOrKey(driver.getPageSource());
		screenshot("administrator-leases");
		click(By.cssSelector("tr[data-lease-id='" + lease.leaseId() + "'] button.details"));
		waitUntil("the acquisition is in the detail's events",
				() -> !driver.findElements(By.cssSelector("#events tr[data-event-type='target_lease_acquire']"))
					.isEmpty());
		narrowScreenshot(lease.leaseId());
		click(By.cssSelector("tr[data-lease-id='" + lease.leaseId() + "'] button.revoke"));
		WebElement dialog = driver.findElement(By.id("confirm"));
		waitUntil("the confirmation opens", () -> dialog.getDomAttribute("open") != null);
		driver.findElement(By.id("confirm-ok")).click();
		assertThat(dialog.getDomAttribute("open")).as("no reason: the confirmation stays open").isNotNull();
		driver.findElement(By.id("confirm-reason")).sendKeys("worker stuck after node loss");
		driver.findElement(By.id("confirm-incident")).sendKeys("INC-17");
		screenshot("revoke-confirmation");
		driver.findElement(By.id("confirm-ok")).click();
		waitUntil("the typed result is shown",
				() -> text(By.id("status")).startsWith("lease_revoked"));
		waitUntil("the revoked lease disappears from the list",
				() -> driver.findElements(By.cssSelector("#leases tr[data-lease-id='" + lease.leaseId() + "']"))
					.isEmpty());

		// the revoked job now tries its fenced write: refused, and audited with reason and token
		run.commit().countDown();
		running.get(30, TimeUnit.SECONDS);
		assertThat(run.decision().get().outcome()).isEqualTo(FenceOutcome.LEASE_LOST);
		By rejected = By.cssSelector("#events tr[data-event-type='target_lease_commit_rejected']");
		waitUntil("the rejected commit appears in the detail's audit events", () -> {
			click(By.id("detail-refresh"));
			return !driver.findElements(rejected).isEmpty();
		});
		assertThat(text(rejected)).contains("lease_lost",
				Long.toString(lease.fencingToken()), "authorize_commit:");
		assertThat(text(By.cssSelector("#events tr[data-event-type='target_lease_revoke']")))
			.contains("lease_revoked", "administrator prn_admin_alice", "incident_id=INC-17 worker stuck after node loss");
		waitUntil("fencing health counts the rejection", () -> {
			click(By.id("apply"));
			return !driver.findElements(By.cssSelector("#rejections tr[data-enforcement-point='authorize_commit']"))
				.isEmpty();
		});
		assertThat(text(By.cssSelector("#losses tr[data-lease-id='" + lease.leaseId() + "']"))).contains("revoke",
				run.target());
		((JavascriptExecutor) driver).executeScript("document.getElementById('detail').scrollIntoView()");
		screenshot("after-revoke-detail");
		((JavascriptExecutor) driver).executeScript("window.scrollTo(0, 0)");
		screenshot("after-revoke-health");
	}

	/**
	 * Issue 36: an administrator recovers the selected program after a confirmation with a reason; the running job's
	 * lease is revoked and its fenced write refused.
	 */
	@Test
	void administratorRecoversTheProgram() throws Exception {
		ConsoleTestApplication.Run run = new ConsoleTestApplication.Run("t-recover-" + shortId());
		Future<?> running = start(run);
		LeaseContext lease = run.awaitStarted(running);
		driver.get(console("/login"));
		signIn("key_admin_alice", ADMIN_SECRET);
		leaseRow(lease.leaseId());
		click(By.id("recover-program"));
		WebElement dialog = driver.findElement(By.id("confirm"));
		waitUntil("the confirmation opens", () -> dialog.getDomAttribute("open") != null);
		assertThat(text(By.id("confirm-what"))).contains("Recover program " + PROGRAM);
		driver.findElement(By.id("confirm-ok")).click();
		assertThat(dialog.getDomAttribute("open")).as("no reason: the confirmation stays open").isNotNull();
		driver.findElement(By.id("confirm-reason")).sendKeys("restored from backup");
		driver.findElement(By.id("confirm-ok")).click();
		waitUntil("the typed result is shown", () -> text(By.id("status")).startsWith("lease_revoked"));
		assertThat(text(By.id("status"))).contains("revoked", PROGRAM);
		waitUntil("the recovered lease disappears from the list",
				() -> driver.findElements(By.cssSelector("#leases tr[data-lease-id='" + lease.leaseId() + "']"))
					.isEmpty());
		run.commit().countDown();
		running.get(30, TimeUnit.SECONDS);
		assertThat(run.decision().get().outcome()).isEqualTo(FenceOutcome.LEASE_LOST);
	}

	@Test
	void workerCredentialSeesNoRevokeButton() throws Exception {
		ConsoleTestApplication.Run run = new ConsoleTestApplication.Run("t-worker-view-" + shortId());
		LeaseContext lease = run.awaitStarted(start(run));
		driver.get(console("/login"));
		signIn("key_worker_01", WORKER_SECRET);
		leaseRow(lease.leaseId());
		assertThat(driver.findElements(By.cssSelector("#leases button.details"))).isNotEmpty();
		assertThat(driver.findElements(By.cssSelector("button.revoke, button.force-release"))).isEmpty();
		assertThat(driver.findElement(By.id("recover-program")).isDisplayed()).isFalse();
		assertThat(text(By.id("caller"))).contains("prn_worker_usernamegen", "worker");
		screenshot("worker-leases");
	}

	@Test
	void forgedWritesAreRefused() throws Exception {
		ConsoleTestApplication.Run run = new ConsoleTestApplication.Run("t-forged-" + shortId());
		LeaseContext lease = run.awaitStarted(start(run));
		driver.get(console("/login"));
		signIn("key_admin_alice", ADMIN_SECRET);
		leaseRow(lease.leaseId());
		String session = driver.manage().getCookieNamed("JSESSIONID").getValue();
		String token = driver.findElement(By.cssSelector("meta[name='csrf-token']")).getDomAttribute("content");
		String header = driver.findElement(By.cssSelector("meta[name='csrf-header']")).getDomAttribute("content");
		String body = "{\"request_id\":\"req-forged-" + shortId() + "\",\"lock_identity\":{\"tenant_id\":\"" + TENANT
				+ "\",\"program_id\":\"" + PROGRAM + "\",\"target_namespace\":\"starintel-target\",\"target_id\":\""
				+ run.target() + "\",\"actor_name\":\"usernamegen\",\"workflow_name\":\"default\"},\"lease_id\":\""
				+ lease.leaseId() + "\",\"fencing_token\":" + lease.fencingToken() + ",\"reason\":\"forged\"}";
		HttpClient http = HttpClient.newHttpClient();

		// the session cookie alone (what a forged cross-site POST carries) is refused
		HttpResponse<String> noToken = http.send(post("/api/revoke", body).header("Cookie", "JSESSIONID=" + session)
			.build(), HttpResponse.BodyHandlers.ofString());
		assertThat(noToken.statusCode()).isEqualTo(403);
		assertThat(noToken.body()).contains("\"code\":\"access_denied\"");

		// a valid token from another origin is refused too
		HttpResponse<String> foreign = http.send(post("/api/revoke", body).header("Cookie", "JSESSIONID=" + session)
			.header(header, token)
			.header("Origin", "http://evil.example")
			.build(), HttpResponse.BodyHandlers.ofString());
		assertThat(foreign.statusCode()).isEqualTo(403);
		assertThat(foreign.body()).contains("\"code\":\"access_denied\"");

		// a form POST without a session or token from a page of another site: no lease access either
		HttpResponse<String> anonymous = http.send(post("/api/revoke", body).header("Origin", "http://evil.example")
			.build(), HttpResponse.BodyHandlers.ofString());
		assertThat(anonymous.statusCode()).isIn(401, 403);

		// the lease is untouched: the page still lists it as active
		click(By.id("apply"));
		leaseRow(lease.leaseId());
		assertThat(text(rowOf(lease.leaseId()))).contains("active");

		// the same request with the session's token from the console's own origin reaches the operation
		HttpResponse<String> stale = http.send(post("/api/revoke",
				body.replace("\"fencing_token\":" + lease.fencingToken(), "\"fencing_token\":1"))
			.header("Cookie", "JSESSIONID=" + session)
			.header(header, token)
			.header("Origin", "http://localhost:" + this.port)
			.build(), HttpResponse.BodyHandlers.ofString());
		assertThat(stale.statusCode()).as(stale.body()).isEqualTo(409);
		assertThat(stale.body()).contains("\"code\":\"lease_lost\"");

		// unauthenticated: the API answers 401 envelopes, the page redirects to the sign-in page
		HttpResponse<String> api = http.send(HttpRequest.newBuilder(URI.create(console("/api/leases?tenant_id="
				+ TENANT + "&program_id=" + PROGRAM))).build(), HttpResponse.BodyHandlers.ofString());
		assertThat(api.statusCode()).isEqualTo(401);
		assertThat(api.body()).contains("\"code\":\"invalid_credential\"");
		HttpResponse<String> page = http.send(HttpRequest.newBuilder(URI.create(console("/"))).build(),
				HttpResponse.BodyHandlers.ofString());
		assertThat(page.statusCode()).isEqualTo(302);
		assertThat(page.headers().firstValue("Location").orElseThrow()).endsWith("/targetleases-console/login");

		// who is signed in: principal, kind, capabilities and scope; no credential id, no secret
		HttpResponse<String> me = http.send(HttpRequest.newBuilder(URI.create(console("/me")))
			.header("Cookie", "JSESSIONID=" + session)
			.build(), HttpResponse.BodyHandlers.ofString());
		assertThat(me.body()).contains("\"principal_id\":\"prn_admin_alice\"", "\"targets:revoke\"")
			.doesNotContain("key_admin_alice");
		assertNoSecretOrKey(me.body());
	}

	// ---------------------------------------------------------------- helpers

	private Future<?> start(ConsoleTestApplication.Run run) {
		this.runs.add(run);
		return jobs.submit(() -> this.job.process(run));
	}

	private String console(String path) {
		return "http://localhost:" + this.port + "/actuator/targetleases-console" + path;
	}

	private HttpRequest.Builder post(String path, String body) {
		return HttpRequest.newBuilder(URI.create(console(path)))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(body));
	}

	private void signIn(String credentialId, String secret) {
		driver.get(console("/login"));
		driver.findElement(By.id("username")).sendKeys(credentialId);
		driver.findElement(By.id("password")).sendKeys(secret);
		driver.findElement(By.id("sign-in")).click();
		waitUntil("signed in", () -> text(By.id("caller")).contains("·"));
	}

	private void signOut() {
		driver.findElement(By.id("sign-out")).click();
		waitUntil("signed out", () -> driver.getCurrentUrl().endsWith("/login?logout"));
	}

	private void leaseRow(String leaseId) {
		waitUntil("lease " + leaseId + " is listed", () -> !driver.findElements(rowOf(leaseId)).isEmpty());
	}

	private static By rowOf(String leaseId) {
		return By.cssSelector("#leases tr[data-lease-id='" + leaseId + "']");
	}

	/** The text of an element the page may re-render meanwhile (auto-refresh): read again when stale. */
	private static String text(By by) {
		return new FluentWait<>(driver).withTimeout(WAIT)
			.ignoring(StaleElementReferenceException.class)
			.ignoring(NoSuchElementException.class)
			.until((d) -> d.findElement(by).getText());
	}

	private int countdown(String leaseId) {
		String text = text(By.cssSelector("#leases tr[data-lease-id='" + leaseId + "'] .countdown"));
		assertThat(text).matches("\\d+ s");
		return Integer.parseInt(text.substring(0, text.indexOf(' ')));
	}

	private void click(By by) {
		new FluentWait<>(driver).withTimeout(WAIT)
			.ignoring(StaleElementReferenceException.class)
			.ignoring(NoSuchElementException.class)
			.until((d) -> {
				d.findElement(by).click();
				return true;
			});
	}

	private static void waitUntil(String what, BooleanSupplier condition) {
		new FluentWait<>(driver).withTimeout(WAIT)
			.pollingEvery(Duration.ofMillis(200))
			.ignoring(StaleElementReferenceException.class)
			.ignoring(NoSuchElementException.class)
			.withMessage(what)
			.until((d) -> condition.getAsBoolean());
	}

	private void narrowScreenshot(String leaseId) {
		driver.manage().window().setSize(new Dimension(390, 844));
		waitUntil("the narrow layout stacks the filters", () -> "column".equals(
				driver.findElement(By.id("filters")).getCssValue("flex-direction")));
		Object overflow = ((JavascriptExecutor) driver).executeScript(
				"return document.documentElement.scrollWidth - document.documentElement.clientWidth");
		assertThat(((Number) overflow).intValue()).as("no horizontal scrolling at 390 px").isLessThanOrEqualTo(0);
		assertThat(driver.findElement(By.cssSelector("#leases tr[data-lease-id='" + leaseId + "'] button.revoke"))
			.isDisplayed()).isTrue();
		((JavascriptExecutor) driver).executeScript(
				"document.querySelector(\"#leases tr[data-lease-id='" + leaseId + "']\").scrollIntoView()");
		screenshot("narrow");
		driver.manage().window().setSize(new Dimension(1280, 800));
		((JavascriptExecutor) driver).executeScript("window.scrollTo(0, 0)");
	}

	private static void assertNoSecretOrKey(String text) {
		assertThat(text).doesNotContain(ADMIN_SECRET, OPERATOR_SECRET, WORKER_SECRET, "{bcrypt}",
				"starintel:target-lease:");
	}

	/**
	 * Saves a screenshot as {@code target/console-screenshots/console-NAME.png}, and also into the repository's
	 * {@code docs/console/} when run with {@code -Dstarintel.console.screenshots=docs} (how the documentation's
	 * images are refreshed; plain builds leave the checkout untouched).
	 */
	private static void screenshot(String name) {
		try {
			Path shot = ((ChromeDriver) driver).getScreenshotAs(OutputType.FILE).toPath();
			List<Path> targets = new ArrayList<>();
			targets.add(Path.of("target", "console-screenshots"));
			Path docs = docs();
			if (docs != null && "docs".equals(System.getProperty("starintel.console.screenshots"))) {
				targets.add(docs);
			}
			for (Path dir : targets) {
				Files.createDirectories(dir);
				Files.copy(shot, dir.resolve("console-" + name + ".png"), StandardCopyOption.REPLACE_EXISTING);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static @Nullable Path docs() {
		for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
			if (Files.isRegularFile(dir.resolve("docs/admin.md"))) {
				return dir.resolve("docs/console");
			}
		}
		return null;
	}

	private static String shortId() {
		return UUID.randomUUID().toString().substring(0, 8);
	}

}
