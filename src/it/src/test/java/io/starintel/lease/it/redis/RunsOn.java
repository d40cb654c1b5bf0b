package io.starintel.lease.it.redis;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The kind of server a Redis store suite runs on. The suites are written once, for Redis (no annotation); a
 * {@code Valkey…Tests} subclass annotated {@code @RunsOn(RedisServerKind.VALKEY)} runs the same tests on Valkey.
 * The suites read it with {@link RedisServerKind#of(Class)} in their {@code @BeforeAll} (via {@code TestInfo}).
 * A Valkey class is skipped, with the reason, when Valkey is not there outside CI
 * ({@link ServerAvailableCondition}).
 */
@Documented
@Inherited
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(ServerAvailableCondition.class)
public @interface RunsOn {

	RedisServerKind value();

}
