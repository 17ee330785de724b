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

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Asserts, once the Spring test context of a class has been closed, that none of the
 * processes its servers started is alive, and none of their containers is left (as
 * {@link NoProcessLeft} does after each test). Declare it before {@code @SpringBootTest}
 * (and use {@code @DirtiesContext}) so that it runs after the context is closed; it reads
 * the test class's static {@link Fixtures} field, which the context's properties name.
 *
 * @author mcp-stdio authors
 */
public class NoneAliveAfterContext implements AfterAllCallback {

	@Override
	public void afterAll(ExtensionContext context) throws Exception {
		for (Field field : context.getRequiredTestClass().getDeclaredFields()) {
			if (field.getType() == Fixtures.class && Modifier.isStatic(field.getModifiers())) {
				field.setAccessible(true);
				NoProcessLeft.assertNothingLeft((Fixtures) field.get(null));
				return;
			}
		}
		throw new IllegalStateException("No static Fixtures field in " + context.getRequiredTestClass());
	}

}
