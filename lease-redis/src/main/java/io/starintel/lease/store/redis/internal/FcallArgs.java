package io.starintel.lease.store.redis.internal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.protocol.CommandArgs;
import io.netty.buffer.ByteBuf;
import org.jspecify.annotations.Nullable;

/**
 * The arguments of one {@code FCALL function numkeys keys... args...}, written to the wire as RESP bulk strings
 * directly from the prepared byte arrays, with no per-argument length text (Lettuce formats every length of 10 or
 * more through {@code Long.toString}) and without one Lettuce argument object per argument: only the first key is
 * added as Lettuce adds it, because Lettuce's cluster writer routes by the first key argument it finds in the
 * argument list; {@link #count()}, {@link #getFirstEncodedKey()} and {@link #toCommandString()} answer for all.
 */
final class FcallArgs extends CommandArgs<byte[], byte[]> {

	private static final byte[] CRLF = { '\r', '\n' };

	private final byte[] function;

	private final byte[] keyCount;

	private final byte[][] keys;

	private final byte[][] args;

	private final byte[] echo;

	/**
	 * A call of {@code function} with its keys and arguments, and {@code echo} sent after them as the last argument:
	 * the library's wrapper takes it off and returns it as the reply's last element ({@link ReplyEcho}).
	 */
	FcallArgs(LeaseLibrary.Function function, byte[][] keys, byte[][] args, byte[] echo) {
		super(ByteArrayCodec.INSTANCE);
		if (keys.length == 0) {
			throw new IllegalArgumentException("a lease library call names at least one key (its slot)");
		}
		this.function = function.nameBytes();
		this.keyCount = Integer.toString(keys.length).getBytes(StandardCharsets.US_ASCII);
		this.keys = keys;
		this.args = args;
		this.echo = echo;
		if (keys.length > 0) {
			addKey(keys[0]);
		}
	}

	@Override
	public int count() {
		return 3 + this.keys.length + this.args.length;
	}

	@Override
	public @Nullable ByteBuffer getFirstEncodedKey() {
		return (this.keys.length > 0) ? ByteBuffer.wrap(this.keys[0]) : null;
	}

	/** The function name and the key and argument sizes (values are not rendered: they hold identifiers). */
	@Override
	public String toCommandString() {
		return new String(this.function, StandardCharsets.US_ASCII) + " " + this.keys.length + " (" + this.keys.length
				+ " keys, " + this.args.length + " arguments)";
	}

	@Override
	public String toString() {
		return getClass().getSimpleName() + " [" + toCommandString() + "]";
	}

	@Override
	public void encode(ByteBuf buf) {
		bulk(buf, this.function);
		bulk(buf, this.keyCount);
		for (byte[] key : this.keys) {
			bulk(buf, key);
		}
		for (byte[] arg : this.args) {
			bulk(buf, arg);
		}
		bulk(buf, this.echo);
	}

	private static void bulk(ByteBuf buf, byte[] value) {
		buf.writeByte('$');
		decimal(buf, value.length);
		buf.writeBytes(CRLF);
		buf.writeBytes(value);
		buf.writeBytes(CRLF);
	}

	private static void decimal(ByteBuf buf, int value) {
		if (value < 10) {
			buf.writeByte('0' + value);
			return;
		}
		int divisor = 1;
		while (value / divisor >= 10) {
			divisor *= 10;
		}
		while (divisor > 0) {
			buf.writeByte('0' + (value / divisor) % 10);
			divisor /= 10;
		}
	}

}
