package io.starintel.lease.fence.amqp;

import java.util.Collection;
import java.util.Set;

/**
 * Which publish destinations are declared fenced: a publish to one of them without a bound lease context is
 * refused ({@code no_lease_context}) and never reaches the broker.
 *
 * <p>Contract: Rabbit publication that makes an exclusive result externally visible is a fencing enforcement point.
 */
@FunctionalInterface
public interface FencedDestinations {

	/** Whether a publish to this exchange and routing key requires a lease context. */
	boolean isFenced(String exchange, String routingKey);

	/** No destination requires a context (publishes under a bound context are still fenced). */
	static FencedDestinations none() {
		return (exchange, routingKey) -> false;
	}

	/**
	 * Destinations by exchange name, or by routing key on the default exchange (i.e. by queue name).
	 */
	static FencedDestinations of(Collection<String> exchanges, Collection<String> defaultExchangeRoutingKeys) {
		Set<String> fencedExchanges = Set.copyOf(exchanges);
		Set<String> fencedQueues = Set.copyOf(defaultExchangeRoutingKeys);
		return (exchange, routingKey) -> fencedExchanges.contains(exchange)
				|| (exchange.isEmpty() && fencedQueues.contains(routingKey));
	}

}
