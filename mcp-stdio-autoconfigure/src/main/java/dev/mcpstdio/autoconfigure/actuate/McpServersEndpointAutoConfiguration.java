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

package dev.mcpstdio.autoconfigure.actuate;

import dev.mcpstdio.actuate.McpServersEndpoint;
import dev.mcpstdio.actuate.McpServersEndpointWebExtension;
import dev.mcpstdio.autoconfigure.McpStdioAutoConfiguration;
import dev.mcpstdio.lifecycle.McpStdioServers;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.EndpointExposure;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the {@link McpServersEndpoint} and, exposed over the web, its web
 * extension.
 *
 * @author mcp-stdio authors
 */
@AutoConfiguration(after = McpStdioAutoConfiguration.class)
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnAvailableEndpoint(McpServersEndpoint.class)
@EnableConfigurationProperties(McpServersProperties.Endpoint.class)
public final class McpServersEndpointAutoConfiguration {

	@Bean
	@ConditionalOnBean(McpStdioServers.class)
	@ConditionalOnMissingBean
	McpServersEndpoint mcpServersEndpoint(McpStdioServers servers, McpServersProperties.Endpoint properties) {
		return new McpServersEndpoint(servers, properties.getShowValues());
	}

	@Bean
	@ConditionalOnBean(McpServersEndpoint.class)
	@ConditionalOnMissingBean
	@ConditionalOnAvailableEndpoint(exposure = EndpointExposure.WEB)
	McpServersEndpointWebExtension mcpServersEndpointWebExtension(McpServersEndpoint endpoint,
			McpServersProperties.Endpoint properties) {
		return new McpServersEndpointWebExtension(endpoint, properties.getShowValues(), properties.getRoles());
	}

}
