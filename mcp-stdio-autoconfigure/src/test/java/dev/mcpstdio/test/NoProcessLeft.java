/*
 * Copyright 2026 the mcp-stdio authors.
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *      https://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

package dev.mcpstdio.test;

import java.time.Duration;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ExtensionContext.Namespace;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Gives each test its own {@link Fixtures} (a parameter of the test class's constructor
 * or of a test method) and asserts, once the test and its {@code @AfterEach} methods are
 * done, that no process with the test's marker is alive and no container with its label
 * is left. What is found is ended, by pid or container id, and fails the test.
 *
 * @author mcp-stdio authors
 */
public final class NoProcessLeft implements ParameterResolver, AfterEachCallback {

	/** How long a test's processes may take to go after it. */
	public static final Duration BOUND = Duration.ofSeconds(10);

	private static final Namespace NAMESPACE = Namespace.create(NoProcessLeft.class);

	@Override
	public ExtensionContextScope getTestInstantiationExtensionContextScope(ExtensionContext rootContext) {
		// the constructor's Fixtures is the test's, kept with it until its end
		return ExtensionContextScope.TEST_METHOD;
	}

	@Override
	public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
		return parameter.getParameter().getType() == Fixtures.class;
	}

	@Override
	public Fixtures resolveParameter(ParameterContext parameter, ExtensionContext context) {
		return context.getStore(NAMESPACE).computeIfAbsent(Fixtures.class, (type) -> new Fixtures(), Fixtures.class);
	}

	@Override
	public void afterEach(ExtensionContext context) {
		Fixtures fixtures = context.getStore(NAMESPACE).get(Fixtures.class, Fixtures.class);
		if (fixtures != null) {
			assertNothingLeft(fixtures);
		}
	}

	/**
	 * Assert that nothing of a test is left: neither a process with its marker nor a
	 * container with its label; both are looked for, whatever the first finds.
	 * @param fixtures the test's fixtures
	 */
	public static void assertNothingLeft(Fixtures fixtures) {
		// the containers first: removing one ends the engine's client too
		AssertionError containers = null;
		if (fixtures.labelledContainers()) {
			try {
				ContainerEngines.assertNoneLeft(fixtures.id(), BOUND);
			}
			catch (AssertionError ex) {
				containers = ex;
			}
		}
		try {
			fixtures.assertNoneAlive(BOUND);
		}
		catch (AssertionError ex) {
			if (containers != null) {
				ex.addSuppressed(containers);
			}
			throw ex;
		}
		if (containers != null) {
			throw containers;
		}
	}

}
