package io.starintel.lease.autoconfigure.couchdb.internal;

import java.io.IOException;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.ektorp.DbAccessException;
import org.ektorp.DocumentNotFoundException;
import org.jspecify.annotations.Nullable;

import io.starintel.lease.autoconfigure.couchdb.CouchDbConnectionDetails;
import io.starintel.lease.autoconfigure.couchdb.LeaseCouchDbProperties;
import io.starintel.lease.core.LeaseConfigurationException;
import io.starintel.lease.core.LeaseConfigurationException.Problem;

/**
 * The failure of a CouchDB call the auto-configuration makes at start-up (creating the database,
 * {@code starintel.lease.couchdb.create-database=true}; installing the fence design document) as a
 * {@link LeaseConfigurationException}, which the starter's failure analyzer prints as one "APPLICATION FAILED TO
 * START" report naming the property to fix: a missing database names {@code starintel.lease.couchdb.database} and
 * {@code create-database}; an unreachable server names {@code starintel.lease.couchdb.url}; refused credentials
 * ({@code 401}) and a user without the rights the call needs ({@code 403}) name {@code username}. The report never
 * shows a password, nor the user info of a URL; the Ektorp exception stays the cause (Boot logs it at DEBUG only).
 */
public final class CouchDbStartupFailures {

	private static final String PREFIX = "starintel.lease.couchdb.";

	/** Ektorp's message of an HTTP error answer: the status code first ({@code 401:Unauthorized}). */
	private static final Pattern STATUS = Pattern.compile("^(\\d{3})\\b");

	/** The user info of a URL in a text (up to the last {@code @} of a run without spaces). */
	private static final Pattern USER_INFO = Pattern.compile("(?<=://)\\S*@");

	private CouchDbStartupFailures() {
	}

	/** A CouchDB call made at start-up. */
	public enum Task {

		/** Creating the database when missing ({@code starintel.lease.couchdb.create-database=true}). */
		CREATE_DATABASE,

		/** Installing {@code _design/starintel_fence} (unless {@code install-design-document=false}). */
		INSTALL_DESIGN_DOCUMENT;

		String consequence(String database) {
			return (this == CREATE_DATABASE)
					? "the database " + database + " could not be checked or created (create-database=true)"
					: "the fence design document _design/starintel_fence could not be installed in the database "
							+ database;
		}

	}

	/**
	 * The start-up failure to throw for {@code failure}, with {@code failure} as its cause.
	 * @param failure what Ektorp threw
	 * @param task the call that failed
	 * @param database the connector's database
	 * @param properties the {@code starintel.lease.couchdb.*} properties, when bound
	 * @param details the connection the auto-configured client uses, when there is one
	 */
	public static LeaseConfigurationException translate(DbAccessException failure, Task task,
			@Nullable String database, @Nullable LeaseCouchDbProperties properties,
			@Nullable CouchDbConnectionDetails details) {
		String db = (database != null) ? database : "(unnamed)";
		boolean databaseProperty = properties != null && db.equals(properties.database());
		boolean connectionProperties = details instanceof PropertiesCouchDbConnectionDetails;
		String server = (details != null) ? withoutUserInfo(details.url()) : null;
		String serverWhere = connectionProperties ? PREFIX + "url"
				: (details != null) ? "CouchDbConnectionDetails " + details.getClass().getSimpleName()
						: "CouchDbConnector";
		String userWhere = connectionProperties ? PREFIX + "username" : serverWhere;
		String serverValue = (server != null) ? "(" + server + ") " : "";
		LeaseConfigurationException translated;
		IOException io = ioCause(failure);
		int status = status(failure);
		if (io != null) {
			translated = failure(serverWhere, serverValue + "could not be reached (" + io.getClass().getSimpleName()
					+ ": " + scrub(io.getMessage()) + "): " + task.consequence(db),
					"Start the CouchDB server, or set starintel.lease.couchdb.url to the base URL of a reachable one "
							+ "(without credentials: they go in starintel.lease.couchdb.username and .password)."
							+ installedOtherwise(task));
		}
		else if (failure instanceof DocumentNotFoundException) {
			translated = databaseProperty
					? failure(PREFIX + "database", "(" + db + ") does not exist on the CouchDB server"
							+ ((server != null) ? " " + server : "") + ": " + task.consequence(db),
							"Create the database " + db + ", or set starintel.lease.couchdb.create-database=true to "
									+ "create it at start-up (needs a server admin), or set "
									+ "starintel.lease.couchdb.database to an existing database.")
					: failure("CouchDbConnector", "(database " + db + ") does not exist on the CouchDB server: "
							+ task.consequence(db),
							"Create the database " + db + " (or open the connector with createDatabaseIfNotExists).");
		}
		else if (status == 401) {
			boolean anonymous = (details != null) && details.username() == null;
			translated = failure(userWhere,
					(anonymous ? "is not set, and the server requires authentication (401 unauthorized): "
							: "was refused with its password (401 unauthorized): ") + task.consequence(db),
					"Set starintel.lease.couchdb.username and starintel.lease.couchdb.password to a user of the "
							+ "CouchDB server.");
		}
		else if (status == 403) {
			translated = (task == Task.CREATE_DATABASE)
					? failure(userWhere, "may not create databases (403 forbidden): " + task.consequence(db),
							"Create the database " + db + " beforehand and leave "
									+ "starintel.lease.couchdb.create-database=false, or connect as a server admin.")
					: failure(userWhere,
							"may not write design documents in the database " + db + " (403 forbidden): "
									+ task.consequence(db),
							"Make the user an admin of the database " + db + " (its _security admins), or install "
									+ "_design/starintel_fence by other means." + installedOtherwise(task));
		}
		else {
			translated = failure(serverWhere, serverValue + "answered "
					+ ((status > 0) ? "HTTP " + status : failure.getClass().getSimpleName()) + ": "
					+ task.consequence(db), "Check the CouchDB server's log and the starintel.lease.couchdb.* settings."
							+ installedOtherwise(task));
		}
		translated.initCause(failure);
		return translated;
	}

	private static String installedOtherwise(Task task) {
		return (task == Task.INSTALL_DESIGN_DOCUMENT)
				? " The fenced CouchDB connector installs its design document at start-up and does not start without "
						+ "it; where it is installed by other means, "
						+ "starintel.lease.fence.couchdb.install-design-document=false starts without that call."
				: "";
	}

	private static LeaseConfigurationException failure(String where, String what, String action) {
		return new LeaseConfigurationException(List.of(new Problem(where, what)), action);
	}

	private static @Nullable IOException ioCause(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof IOException io) {
				return io;
			}
		}
		return null;
	}

	private static int status(DbAccessException failure) {
		String message = failure.getMessage();
		Matcher status = (message != null) ? STATUS.matcher(message) : null;
		return (status != null && status.find()) ? Integer.parseInt(status.group(1)) : 0;
	}

	/** The URL without its user info ({@code http://user:password@host} shows as {@code http://host}). */
	static String withoutUserInfo(String url) {
		int at = url.lastIndexOf('@');
		if (at < 0) {
			return url;
		}
		int scheme = url.indexOf("://");
		return ((scheme >= 0 && scheme < at) ? url.substring(0, scheme + 3) : "") + url.substring(at + 1);
	}

	private static String scrub(@Nullable String message) {
		return (message != null) ? USER_INFO.matcher(message).replaceAll("") : "";
	}

}
