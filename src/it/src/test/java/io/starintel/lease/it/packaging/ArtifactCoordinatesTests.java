package io.starintel.lease.it.packaging;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's Maven and Gradle snippets name real artifacts: the BOM is this reactor's {@code lease-bom} (pom
 * packaging, the reactor's version) and the starter is a module with jar packaging, so the plain dependency
 * resolves (this module also depends on the starter in that plain form). The BOM lists every published module
 * (every jar module not marked {@code maven.deploy.skip}) at the reactor's version, and nothing else.
 */
class ArtifactCoordinatesTests {

	private static Path root;

	private static Element parent;

	private static String version;

	private static final Map<String, Element> modules = new LinkedHashMap<>();

	@BeforeAll
	static void readReactor() throws Exception {
		root = Path.of(System.getProperty("basedir", ".")).toAbsolutePath().resolve("../..").normalize();
		parent = pom(root.resolve("pom.xml"));
		assertThat(text(parent, "artifactId")).isEqualTo("lease-parent");
		version = text(parent, "version");
		for (Element module : children(child(parent, "modules"), "module")) {
			Element pom = pom(root.resolve(module.getTextContent().trim()).resolve("pom.xml"));
			modules.put(text(pom, "artifactId"), pom);
		}
	}

	@Test
	void readmeMavenSnippetImportsTheBomAndAddsThePlainStarter() throws Exception {
		String xml = block("xml", "<artifactId>lease-bom</artifactId>");
		Element snippet = DocumentBuilderFactory.newInstance()
			.newDocumentBuilder()
			.parse(new java.io.ByteArrayInputStream(("<project>" + xml + "</project>").getBytes()))
			.getDocumentElement();
		Element imported = children(child(child(snippet, "dependencyManagement"), "dependencies"), "dependency").get(0);
		assertThat(text(imported, "groupId")).isEqualTo(text(modules.get("lease-bom"), "groupId"));
		assertThat(text(imported, "artifactId")).isEqualTo("lease-bom");
		assertThat(text(imported, "version")).isEqualTo(version);
		assertThat(text(imported, "type")).isEqualTo("pom");
		assertThat(text(imported, "scope")).isEqualTo("import");
		List<Element> dependencies = children(child(snippet, "dependencies"), "dependency");
		assertThat(dependencies).hasSize(2);
		Element starter = dependencies.get(0);
		assertThat(text(starter, "groupId")).isEqualTo(groupId(modules.get("lease-spring-boot-starter")));
		assertThat(text(starter, "artifactId")).isEqualTo("lease-spring-boot-starter");
		assertThat(child(starter, "type")).as("plain dependency: no <type>").isNull();
		assertThat(child(starter, "version")).as("version from the BOM").isNull();
		assertThat(packaging(modules.get("lease-spring-boot-starter"))).isEqualTo("jar");
		assertThat(bom()).containsKey("lease-spring-boot-starter");
		// the test starter, test scope, version from the BOM
		Element testStarter = dependencies.get(1);
		assertThat(text(testStarter, "groupId")).isEqualTo(groupId(modules.get("lease-spring-boot-starter-test")));
		assertThat(text(testStarter, "artifactId")).isEqualTo("lease-spring-boot-starter-test");
		assertThat(text(testStarter, "scope")).isEqualTo("test");
		assertThat(child(testStarter, "type")).as("plain dependency: no <type>").isNull();
		assertThat(child(testStarter, "version")).as("version from the BOM").isNull();
		assertThat(packaging(modules.get("lease-spring-boot-starter-test"))).isEqualTo("jar");
		assertThat(bom()).containsKey("lease-spring-boot-starter-test");
	}

	@Test
	void readmeGradleSnippetNamesTheSameArtifacts() throws Exception {
		String kotlin = block("kotlin", "platform(");
		Matcher platform = Pattern.compile("platform\\(\"([^:\"]+):([^:\"]+):([^:\"]+)\"\\)").matcher(kotlin);
		assertThat(platform.find()).isTrue();
		assertThat(platform.group(1)).isEqualTo(text(modules.get("lease-bom"), "groupId"));
		assertThat(platform.group(2)).isEqualTo("lease-bom");
		assertThat(platform.group(3)).isEqualTo(version);
		Matcher starter = Pattern.compile("implementation\\(\"([^:\"]+):([^:\"]+)\"\\)").matcher(kotlin);
		assertThat(starter.find()).isTrue();
		assertThat(starter.group(1)).isEqualTo(groupId(modules.get("lease-spring-boot-starter")));
		assertThat(starter.group(2)).isEqualTo("lease-spring-boot-starter");
		Matcher testStarter = Pattern.compile("testImplementation\\(\"([^:\"]+):([^:\"]+)\"\\)").matcher(kotlin);
		assertThat(testStarter.find()).isTrue();
		assertThat(testStarter.group(1)).isEqualTo(groupId(modules.get("lease-spring-boot-starter-test")));
		assertThat(testStarter.group(2)).isEqualTo("lease-spring-boot-starter-test");
	}

	@Test
	void bomListsEveryPublishedModuleAtTheReactorVersionAndNothingElse() throws Exception {
		Element bomPom = modules.get("lease-bom");
		assertThat(bomPom).as("lease-bom is a reactor module").isNotNull();
		assertThat(packaging(bomPom)).isEqualTo("pom");
		assertThat(text(bomPom, "version")).isEqualTo(version);
		assertThat(child(bomPom, "parent")).as("imports only our artifacts, not the build's pins").isNull();
		Map<String, String> bom = bom();
		List<String> published = new ArrayList<>();
		for (Map.Entry<String, Element> module : modules.entrySet()) {
			Element properties = child(module.getValue(), "properties");
			boolean skipped = properties != null && "true".equals(text(properties, "maven.deploy.skip"));
			if ("jar".equals(packaging(module.getValue())) && !skipped) {
				published.add(module.getKey());
			}
		}
		assertThat(published).contains("lease-spring-boot-starter", "lease-autoconfigure", "lease-admin-actuator");
		assertThat(bom.keySet()).as("add a published module to lease-bom, or set maven.deploy.skip in its pom")
			.containsExactlyInAnyOrderElementsOf(published);
		assertThat(bom.values()).allSatisfy((v) -> assertThat(v).isEqualTo(version));
	}

	private static Map<String, String> bom() {
		Map<String, String> managed = new LinkedHashMap<>();
		Element bomPom = modules.get("lease-bom");
		for (Element dependency : children(child(child(bomPom, "dependencyManagement"), "dependencies"),
				"dependency")) {
			assertThat(text(dependency, "groupId")).isEqualTo(groupId(parent));
			managed.put(text(dependency, "artifactId"), text(dependency, "version"));
		}
		return managed;
	}

	private static String block(String language, String containing) throws Exception {
		String readme = Files.readString(root.resolve("README.md"));
		Matcher blocks = Pattern.compile("```" + language + "\\n(.*?)```", Pattern.DOTALL).matcher(readme);
		while (blocks.find()) {
			if (blocks.group(1).contains(containing)) {
				return blocks.group(1);
			}
		}
		throw new AssertionError("README has no ```" + language + " block with " + containing);
	}

	private static String groupId(Element pom) {
		String own = text(pom, "groupId");
		return (own != null) ? own : text(child(pom, "parent"), "groupId");
	}

	private static String packaging(Element pom) {
		String packaging = text(pom, "packaging");
		return (packaging != null) ? packaging : "jar";
	}

	private static Element pom(Path file) throws Exception {
		Document document = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(file.toFile());
		return document.getDocumentElement();
	}

	private static Element child(Element element, String name) {
		if (element == null) {
			return null;
		}
		List<Element> found = children(element, name);
		return found.isEmpty() ? null : found.get(0);
	}

	private static List<Element> children(Element element, String name) {
		List<Element> found = new ArrayList<>();
		NodeList nodes = element.getChildNodes();
		for (int i = 0; i < nodes.getLength(); i++) {
			Node node = nodes.item(i);
			if (node instanceof Element child && child.getTagName().equals(name)) {
				found.add(child);
			}
		}
		return found;
	}

	private static String text(Element element, String name) {
		Element child = child(element, name);
		return (child != null) ? child.getTextContent().trim() : null;
	}

}
