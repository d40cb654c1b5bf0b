package io.starintel.lease.fence.couchdb;

import java.io.InputStream;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

import org.ektorp.AttachmentInputStream;
import org.ektorp.CouchDbConnector;
import org.ektorp.DbInfo;
import org.ektorp.DesignDocInfo;
import org.ektorp.Options;
import org.ektorp.Page;
import org.ektorp.PageRequest;
import org.ektorp.ReplicationStatus;
import org.ektorp.Revision;
import org.ektorp.Security;
import org.ektorp.Status;
import org.ektorp.StreamingChangesResult;
import org.ektorp.StreamingViewResult;
import org.ektorp.ViewQuery;
import org.ektorp.ViewResult;
import org.ektorp.changes.ChangesCommand;
import org.ektorp.changes.ChangesFeed;
import org.ektorp.changes.DocumentChange;
import org.ektorp.http.HttpClient;

/**
 * The reads and the administration of Ektorp's {@link CouchDbConnector}, forwarded unchanged to the undecorated
 * connector; every document write of the interface is left abstract, so the subclass ({@link FencedCouchDbConnector})
 * decides each one: fenced or refused.
 *
 * <p>Why a class of forwarding methods: applications inject the fenced connector as a class and hand it to Ektorp's
 * repositories as a {@code CouchDbConnector}; Ektorp offers no forwarding base (its own extensions subclass
 * {@code StdCouchDbConnector}, which cannot decorate another connector), and a {@code java.lang.reflect.Proxy} can
 * only implement interfaces. Keeping the forwarding here leaves the fenced connector with the fence's decisions only.
 */
abstract class ReadForwardingCouchDbConnector implements CouchDbConnector {

	private final CouchDbConnector undecorated;

	ReadForwardingCouchDbConnector(CouchDbConnector undecorated) {
		this.undecorated = Objects.requireNonNull(undecorated, "undecorated");
	}

	@Override
	public <T> T get(Class<T> type, String id) {
		return this.undecorated.get(type, id);
	}

	@Override
	public <T> T get(Class<T> type, String id, Options options) {
		return this.undecorated.get(type, id, options);
	}

	@Override
	public <T> T get(Class<T> type, String id, String revision) {
		return this.undecorated.get(type, id, revision);
	}

	@Override
	public <T> T find(Class<T> type, String id) {
		return this.undecorated.find(type, id);
	}

	@Override
	public <T> T find(Class<T> type, String id, Options options) {
		return this.undecorated.find(type, id, options);
	}

	@Override
	public <T> T getWithConflicts(Class<T> type, String id) {
		return this.undecorated.getWithConflicts(type, id);
	}

	@Override
	public boolean contains(String id) {
		return this.undecorated.contains(id);
	}

	@Override
	public InputStream getAsStream(String id) {
		return this.undecorated.getAsStream(id);
	}

	@Override
	public InputStream getAsStream(String id, String revision) {
		return this.undecorated.getAsStream(id, revision);
	}

	@Override
	public InputStream getAsStream(String id, Options options) {
		return this.undecorated.getAsStream(id, options);
	}

	@Override
	public List<Revision> getRevisions(String id) {
		return this.undecorated.getRevisions(id);
	}

	@Override
	public String getCurrentRevision(String id) {
		return this.undecorated.getCurrentRevision(id);
	}

	@Override
	public AttachmentInputStream getAttachment(String id, String attachmentId) {
		return this.undecorated.getAttachment(id, attachmentId);
	}

	@Override
	public AttachmentInputStream getAttachment(String id, String attachmentId, String revision) {
		return this.undecorated.getAttachment(id, attachmentId, revision);
	}

	@Override
	public List<String> getAllDocIds() {
		return this.undecorated.getAllDocIds();
	}

	@Override
	public <T> List<T> queryView(ViewQuery query, Class<T> type) {
		return this.undecorated.queryView(query, type);
	}

	@Override
	public <T> Page<T> queryForPage(ViewQuery query, PageRequest pageRequest, Class<T> type) {
		return this.undecorated.queryForPage(query, pageRequest, type);
	}

	@Override
	public ViewResult queryView(ViewQuery query) {
		return this.undecorated.queryView(query);
	}

	@Override
	public StreamingViewResult queryForStreamingView(ViewQuery query) {
		return this.undecorated.queryForStreamingView(query);
	}

	@Override
	public InputStream queryForStream(ViewQuery query) {
		return this.undecorated.queryForStream(query);
	}

	@Override
	public List<DocumentChange> changes(ChangesCommand command) {
		return this.undecorated.changes(command);
	}

	@Override
	public StreamingChangesResult changesAsStream(ChangesCommand command) {
		return this.undecorated.changesAsStream(command);
	}

	@Override
	public ChangesFeed changesFeed(ChangesCommand command) {
		return this.undecorated.changesFeed(command);
	}

	@Override
	public void createDatabaseIfNotExists() {
		this.undecorated.createDatabaseIfNotExists();
	}

	@Override
	public String getDatabaseName() {
		return this.undecorated.getDatabaseName();
	}

	@Override
	public String path() {
		return this.undecorated.path();
	}

	@Override
	public HttpClient getConnection() {
		return this.undecorated.getConnection();
	}

	@Override
	public DbInfo getDbInfo() {
		return this.undecorated.getDbInfo();
	}

	@Override
	public Security getSecurity() {
		return this.undecorated.getSecurity();
	}

	@Override
	public Status updateSecurity(Security security) {
		return this.undecorated.updateSecurity(security);
	}

	@Override
	public DesignDocInfo getDesignDocInfo(String designDocumentId) {
		return this.undecorated.getDesignDocInfo(designDocumentId);
	}

	@Override
	public void compact() {
		this.undecorated.compact();
	}

	@Override
	public void compactViews(String designDocumentId) {
		this.undecorated.compactViews(designDocumentId);
	}

	@Override
	public void cleanupViews() {
		this.undecorated.cleanupViews();
	}

	@Override
	public int getRevisionLimit() {
		return this.undecorated.getRevisionLimit();
	}

	@Override
	public void setRevisionLimit(int limit) {
		this.undecorated.setRevisionLimit(limit);
	}

	@Override
	public ReplicationStatus replicateFrom(String source) {
		return this.undecorated.replicateFrom(source);
	}

	@Override
	public ReplicationStatus replicateFrom(String source, Collection<String> documentIds) {
		return this.undecorated.replicateFrom(source, documentIds);
	}

	@Override
	public ReplicationStatus replicateTo(String target) {
		return this.undecorated.replicateTo(target);
	}

	@Override
	public ReplicationStatus replicateTo(String target, Collection<String> documentIds) {
		return this.undecorated.replicateTo(target, documentIds);
	}

	@Override
	public void ensureFullCommit() {
		this.undecorated.ensureFullCommit();
	}

}
