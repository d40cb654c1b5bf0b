package io.starintel.lease.store.redis.internal;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.CommandOutput;

/**
 * The output of one library function call: the flat array of bulk strings (and integers) every function of
 * {@code lease.lua} replies with, collected into one list with no per-call nesting machinery (Lettuce's
 * {@code NestedMultiOutput} allocates a stack per command). A nested array, which no function sends, is kept as a
 * marker element that the reply readers reject as corrupt; an error reply completes the command exceptionally, as
 * with any Lettuce output.
 */
final class FlatReplyOutput extends CommandOutput<byte[], byte[], List<Object>> {

	/** Stands for a nested array in the flat list (never a byte[] or Long, so readers reject it). */
	static final Object NESTED = new Object();

	private int depth;

	FlatReplyOutput() {
		super(ByteArrayCodec.INSTANCE, new ArrayList<>(12));
	}

	@Override
	public void set(ByteBuffer bytes) {
		this.output.add((bytes != null) ? ByteArrayCodec.INSTANCE.decodeValue(bytes) : null);
	}

	@Override
	public void set(long integer) {
		this.output.add(integer);
	}

	@Override
	public void multi(int count) {
		if (this.depth++ > 0) {
			this.output.add(NESTED);
		}
	}

}
