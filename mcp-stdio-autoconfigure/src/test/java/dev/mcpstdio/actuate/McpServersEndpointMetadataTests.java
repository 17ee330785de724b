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

import dev.mcpstdio.autoconfigure.actuate.McpServersProperties;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.actuate.endpoint.Show;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that the configuration metadata this module's build generates documents the
 * endpoint's keys with their defaults.
 *
 * @author mcp-stdio authors
 */
class McpServersEndpointMetadataTests {

	@Test
	void endpointKeysAreDocumentedWithTheirDefaults() throws IOException {
		Map<String, JsonNode> properties = generatedProperties();
		// generated from @Endpoint(defaultAccess = READ_ONLY); binds like read-only
		assertThat(properties.get("management.endpoint.mcpservers.access").get("defaultValue").asString())
			.isEqualTo("read_only");
		JsonNode showValues = properties.get("management.endpoint.mcpservers.show-values");
		assertThat(showValues.get("type").asString()).isEqualTo(Show.class.getName());
		assertThat(showValues.get("defaultValue").asString())
			.isEqualTo(new McpServersProperties.Endpoint().getShowValues().name().toLowerCase());
		assertThat(showValues.get("description").asString()).contains("withheld", "never shown");
		assertThat(properties.get("management.endpoint.mcpservers.roles").get("description").asString())
			.contains("authenticated users");
	}

	private static Map<String, JsonNode> generatedProperties() throws IOException {
		Map<String, JsonNode> properties = new LinkedHashMap<>();
		for (URL url : Collections.list(McpServersEndpointMetadataTests.class.getClassLoader()
			.getResources("META-INF/spring-configuration-metadata.json"))) {
			// the one this module's build generated, not those of the jars
			if ("file".equals(url.getProtocol())) {
				try (InputStream in = url.openStream()) {
					JsonMapper.shared()
						.readTree(in)
						.get("properties")
						.forEach((property) -> properties.put(property.get("name").asString(), property));
				}
			}
		}
		return properties;
	}

}
