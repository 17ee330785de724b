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

package dev.mcpstdio.actuate;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import dev.mcpstdio.test.NoneAliveAfterContext;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.core.annotation.AliasFor;
import org.springframework.test.annotation.DirtiesContext;

/**
 * A test of the actuator over real HTTP: {@link ActuateTestApplication} on a random port
 * with a {@code RestTestClient}, its endpoints exposed and short shutdown bounds, the
 * context closed after the class, then none of its servers' processes left (the class
 * names its servers, marked with its static {@code Fixtures}, in a
 * {@code @DynamicPropertySource}).
 *
 * @author mcp-stdio authors
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
// first: its check runs after the context is closed
@ExtendWith(NoneAliveAfterContext.class)
@SpringBootTest(classes = ActuateTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
		"spring.ai.mcp.client.enabled=false", "management.endpoints.web.exposure.include=health,mcpservers,prometheus",
		"management.endpoint.health.show-details=always", "mcp.stdio.defaults.shutdown.drain-timeout=500ms",
		"mcp.stdio.defaults.shutdown.stdin-close-timeout=1s", "mcp.stdio.defaults.shutdown.terminate-timeout=1s" })
@AutoConfigureRestTestClient
@DirtiesContext
@interface ActuateHttpTest {

	/**
	 * The application's configuration classes.
	 * @return the classes
	 */
	@AliasFor(annotation = SpringBootTest.class, attribute = "classes")
	Class<?>[] classes() default ActuateTestApplication.class;

}
