package io.starintel.lease.it.redis;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Runs the whole annotated test class once per {@link RedisServerKind}: first on Redis, then on Valkey. The class
 * receives the kind in a {@code @BeforeParameterizedClassInvocation} method's parameter (to connect or start its
 * servers there) or in a {@code @Parameter} field; reports name each run {@code [1] Redis} / {@code [2] Valkey}.
 */
@Documented
@Inherited
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ParameterizedClass(name = "[{index}] {0}")
@EnumSource(RedisServerKind.class)
public @interface OnRedisAndValkey {

}
