package io.starintel.lease.autoconfigure;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The lease operation observations ({@code starintel.lease.observation.*}), when no
 * {@code LeaseOperationObservationConvention} bean replaces the default convention.
 *
 * @param programTag whether the starintel.lease.operation observations (and their timer) carry the request's program
 * id as the low-cardinality key program: one series per program, so only for a bounded number of programs
 */
@ConfigurationProperties("starintel.lease.observation")
public record LeaseObservationProperties(@DefaultValue("false") boolean programTag) {

}
