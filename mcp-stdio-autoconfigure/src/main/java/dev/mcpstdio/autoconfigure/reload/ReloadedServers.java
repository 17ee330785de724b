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

package dev.mcpstdio.autoconfigure.reload;

import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.autoconfigure.config.ServerBeans;
import dev.mcpstdio.core.ServerHost;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServerDefinition;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.lifecycle.ServerUsers;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.core.log.LogMessage;

/**
 * The servers a reload stops and starts, as beans of the context: a retired one stopped
 * for good and forgotten with its bean, a new one created and destroyed as the context's
 * own are.
 *
 * @author mcp-stdio authors
 */
final class ReloadedServers {

	// what a reload does is logged as the reload
	private static final Log logger = LogFactory.getLog(ServerReloads.class);

	private final McpStdioServers servers;

	private final ServerHost host;

	/** The context's bean factory, which holds the servers' beans. */
	private final DefaultListableBeanFactory beanFactory;

	ReloadedServers(McpStdioServers servers, ServerHost host, DefaultListableBeanFactory beanFactory) {
		this.servers = servers;
		this.host = host;
		this.beanFactory = beanFactory;
	}

	/** Stop a server by the ordered shutdown, then forget it and its bean. */
	void retire(McpStdioServer server) {
		// for good: a restart racing the reload cannot start it again
		server.destroy();
		this.servers.remove(server);
		String beanName = ServerBeans.beanName(server.name());
		if (this.beanFactory.containsBeanDefinition(beanName)) {
			// its destroy() stops nothing more: it is stopped
			this.beanFactory.removeBeanDefinition(beanName);
		}
		else {
			this.beanFactory.destroySingleton(beanName);
		}
	}

	/**
	 * Create a server as a bean of the context: its shutdown stops it with the others.
	 */
	McpStdioServer register(McpStdioServerDefinition definition) {
		String beanName = ServerBeans.beanName(definition.name());
		// post-processed as the context's own servers are: their request observations
		// are attached there
		McpStdioServer server = (McpStdioServer) this.beanFactory.initializeBean(ServerBeans.server(definition,
				this.host, this.beanFactory.getBeanProvider(ServerUsers.class).getIfAvailable()), beanName);
		this.beanFactory.registerSingleton(beanName, server);
		// destroyed with the context, like the servers it defined
		this.beanFactory.registerDisposableBean(beanName, server);
		this.servers.add(server);
		if (definition.demand().perUser() != null && !this.beanFactory.containsBean(ServerBeans.USER_TASK_DECORATOR)) {
			logger.warn(LogMessage.format("%s runs per user since this reload, but the application's executors were "
					+ "built without the decorator that hands them the calling user (no per-user server at start): its "
					+ "calls from @Async methods or async requests have no user and are refused until the application "
					+ "restarts; calls on request threads reach the user's instance",
					McpStdioException.describe(definition.name())));
		}
		return server;
	}

	static void start(McpStdioServer server) {
		try {
			// as the context starts it: a required server that cannot start is FAILED,
			// and the application goes on
			server.start();
		}
		catch (RuntimeException ex) {
			logger.error(LogMessage.format("%s added by a reload could not start and is %s: %s",
					McpStdioException.describe(server.name()), server.state(), ex.getMessage()));
		}
	}

}
