package io.starintel.lease.bench;

import java.util.Locale;

import io.netty.channel.epoll.Epoll;

/**
 * The client transport of every library in a run, from {@code bench.transport}: {@code nio} (the default: the JDK's
 * selector, which Lettuce and Redisson use unless the application adds Netty's native transport) or {@code epoll}
 * (Netty's native epoll transport, which this module has on its class path: Lettuce takes it by itself when it is not
 * switched off, Redisson with {@code TransportMode.EPOLL}). One transport for all libraries of a run, so that the
 * ratios compare the libraries, not their transports; the report names it.
 */
enum BenchTransport {

	/** The JDK's NIO selector (Lettuce's and Redisson's default without the native transport). */
	NIO,

	/** Netty's native epoll transport (Linux). */
	EPOLL;

	/** The run's transport ({@code bench.transport}, default {@code nio}). */
	static BenchTransport current() {
		String name = System.getProperty("bench.transport", "nio").trim().toUpperCase(Locale.ROOT);
		try {
			return valueOf(name);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("bench.transport must be nio or epoll, not " + name.toLowerCase(Locale.ROOT),
					ex);
		}
	}

	/**
	 * Makes Lettuce use the run's transport: before any Lettuce client is built, its native transports are switched
	 * off for {@code nio} ({@code io.lettuce.core.epoll=false}, read once when Lettuce first looks for them) and
	 * required for {@code epoll}.
	 * @return the transport
	 * @throws IllegalStateException when {@code epoll} is asked for on a machine where Netty cannot load it
	 */
	static BenchTransport apply() {
		BenchTransport transport = current();
		if (transport == NIO) {
			System.setProperty("io.lettuce.core.epoll", "false");
			System.setProperty("io.lettuce.core.iouring", "false");
		}
		else if (!Epoll.isAvailable()) {
			throw new IllegalStateException("bench.transport=epoll, but Netty's epoll transport is not available here",
					Epoll.unavailabilityCause());
		}
		return transport;
	}

	/** The name in reports. */
	String label() {
		return name().toLowerCase(Locale.ROOT);
	}

}
