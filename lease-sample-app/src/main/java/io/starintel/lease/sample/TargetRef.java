package io.starintel.lease.sample;

/** A target reference as a scheduler row would carry it: the id the lease resolver trusts, and a display name. */
record TargetRef(String id, String displayName) {

}
