package io.starintel.lease.job;

/** The trusted target of a lease: namespace and id, before normalization by the lock identity. */
public record ResolvedTarget(String targetNamespace, String targetId) {

}
