package org.kvflow.core;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** A property test: the method takes a {@code long seed}, runs once per {@link Gen#seeds()}, and a failure names its seed. */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@ParameterizedTest(name = "seed {0}")
@MethodSource("org.kvflow.core.Gen#seeds")
public @interface SeededProperty {}
