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

package dev.mcpstdio.autoconfigure;

import java.time.Duration;
import java.util.List;

import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.autoconfigure.config.ConfiguredServers;
import dev.mcpstdio.autoconfigure.config.McpStdioProperties;
import dev.mcpstdio.autoconfigure.config.ServerBeans;
import dev.mcpstdio.autoconfigure.config.SpringAiStdio;
import dev.mcpstdio.core.ServerHost;
import dev.mcpstdio.core.server.StdioServerSpec;
import dev.mcpstdio.core.containment.ContainerRun;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServerDefinition;
import dev.mcpstdio.lifecycle.ServerUsers;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanRegistrar;
import org.springframework.beans.factory.BeanRegistry;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.context.LifecycleProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.io.ApplicationResourceLoader;
import org.springframework.context.aot.AbstractAotProcessor;
import org.springframework.core.env.Environment;
import org.springframework.core.io.DefaultResourceLoader;
import org.springframework.core.io.ResourceLoader;
import org.springframework.core.log.LogMessage;
import org.springframework.core.task.TaskDecorator;
import org.springframework.util.ClassUtils;

/**
 * Registers one {@link McpStdioServer} bean per configured server, once all are valid.
 * <p>
 * A {@link BeanRegistrar}: ahead of time, Spring generates a call to it instead of the
 * beans it registers, so that the servers are read when the application starts, never
 * frozen when it is built. While the application is processed ahead of time it reads no
 * server: only the removal of Spring AI's stdio transports is decided then, as Spring
 * AI's own auto-configuration is.
 *
 * @author mcp-stdio authors
 */
class McpStdioServersRegistrar implements BeanRegistrar {

	/** The bean of the configuration read at start-up. */
	static final String CONFIGURED_SERVERS = "mcpStdioConfiguredServers";

	/**
	 * The bean of the properties, named as Boot names a configuration properties bean.
	 */
	static final String PROPERTIES = McpStdioProperties.PREFIX + "-" + McpStdioProperties.class.getName();

	private static final String PROPERTIES_REGISTRATION = "mcpStdioPropertiesRegistration";

	private static final String TRANSPORT_REMOVER = "mcpStdioSpringAiStdioTransportRemover";

	private static final Log logger = LogFactory.getLog(McpStdioServersRegistrar.class);

	// an error stops start-up here, before any process starts
	@Override
	public void register(BeanRegistry registry, Environment environment) {
		ClassLoader classLoader = ClassUtils.getDefaultClassLoader();
		if (Boolean.getBoolean(AbstractAotProcessor.AOT_PROCESSING)) {
			// built ahead of time: the removal is part of the generated bean definitions
			if (SpringAiStdio.isAdopted(environment, classLoader)) {
				registry.registerBean(TRANSPORT_REMOVER, SpringAiStdio.class,
						(spec) -> spec.infrastructure().supplier((context) -> new SpringAiStdio()));
			}
			return;
		}
		ConfiguredServers configured = ConfiguredServers.read(environment, resourceLoader(classLoader), classLoader,
				logger);
		// read once per start-up: the host, the orphan guard and the reloads take it from
		// here
		registry.registerBean(CONFIGURED_SERVERS, ConfiguredServers.class,
				(spec) -> spec.supplier((context) -> configured));
		// the properties that reading bound, as a bean: a registered instance, which
		// Boot's binding post-processor never binds a second time (it binds only the
		// beans the context creates)
		registry.registerBean(PROPERTIES_REGISTRATION, BeanFactoryPostProcessor.class, (spec) -> spec.infrastructure()
			.supplier(
					(context) -> (beanFactory) -> beanFactory.registerSingleton(PROPERTIES, configured.properties())));
		if (configured.adopting()) {
			// before any bean exists: Spring AI's transports must not even be created
			registry.registerBean(TRANSPORT_REMOVER, SpringAiStdio.class,
					(spec) -> spec.infrastructure().supplier((context) -> new SpringAiStdio()));
		}
		for (McpStdioServerDefinition definition : configured.definitions()) {
			registry.registerBean(ServerBeans.beanName(definition.name()), McpStdioServer.class,
					(spec) -> spec.supplier((context) -> ServerBeans.server(definition, context.bean(ServerHost.class),
							context.beanProvider(ServerUsers.class).getIfAvailable())));
		}
		if (configured.definitions().stream().anyMatch((definition) -> definition.demand().perUser() != null)) {
			// the calling user reaches the threads of the application's executors
			// (@Async, MVC's async requests): a call made there goes to that user's
			// instance
			registry.registerBean(ServerBeans.USER_TASK_DECORATOR, TaskDecorator.class,
					(spec) -> spec.supplier((context) -> SecurityUsers.taskDecorator()));
		}
		warn(environment, configured.definitions());
	}

	/**
	 * Return the loader of a servers file: as the application context's, a plain path is
	 * on the class path and Boot's protocol resolvers apply.
	 */
	private static ResourceLoader resourceLoader(@Nullable ClassLoader classLoader) {
		return ApplicationResourceLoader.get(new DefaultResourceLoader(classLoader));
	}

	/**
	 * Warn about enabled servers whose stop may not fit in a shutdown phase, and once per
	 * option about containers given the host itself: the configuration is trusted, but
	 * such an option is easy to copy without noticing.
	 */
	private void warn(Environment environment, List<McpStdioServerDefinition> definitions) {
		// Spring Boot's default from its properties' field; all servers stop in
		// parallel, so each one's worst case must fit, not their sum
		Duration phaseTimeout = Binder.get(environment)
			.bind("spring.lifecycle.timeout-per-shutdown-phase", Duration.class)
			.orElse(new LifecycleProperties().getTimeoutPerShutdownPhase());
		for (McpStdioServerDefinition definition : definitions) {
			if (!definition.enabled()) {
				continue;
			}
			StdioServerSpec spec = definition.spec();
			Duration worstCase = spec.shutdown().worstCase();
			if (worstCase.compareTo(phaseTimeout) > 0) {
				logger.warn(LogMessage.format("%s may take up to %d ms to stop, longer than "
						+ "spring.lifecycle.timeout-per-shutdown-phase (%d ms): raise that timeout or lower "
						+ "mcp.stdio.servers.%s.shutdown.*; the stop still completes before the context is destroyed",
						McpStdioException.describe(definition.name()), worstCase.toMillis(), phaseTimeout.toMillis(),
						definition.name()));
			}
			// a command line that cannot run in a container was refused by the checks
			ContainerRun run = spec.container().enabled() ? ContainerRun.recognise(spec.command(), spec.args()) : null;
			for (String option : (run != null) ? run.hostAccess() : List.<String>of()) {
				logger.warn(LogMessage.format(
						"%s runs its container with %s, which %s; mcp-stdio runs it as configured, but make sure the "
								+ "server needs it",
						McpStdioException.describe(definition.name()), option, reach(option)));
			}
		}
	}

	private static String reach(String option) {
		// --net is also the start of --network
		return option.equals("--privileged") ? "gives it every capability and device of the host"
				: option.startsWith("--pid") ? "lets it see and signal every process of the host"
						: option.startsWith("--net") ? "puts it on the host's network, its loopback services included"
								: option.endsWith("=host") ? "shares a namespace of the host with it"
										: "mounts the host's whole file system into it";
	}

}
