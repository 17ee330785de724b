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
import java.util.Map;
import java.util.function.Consumer;

import dev.mcpstdio.autoconfigure.ConfiguredServers.ConfiguredServer;
import dev.mcpstdio.autoconfigure.ConfiguredServers.Connection;
import dev.mcpstdio.autoconfigure.ConfiguredServers.SpringAiServers;
import dev.mcpstdio.core.ServerHost;
import dev.mcpstdio.core.StdioServerSpec;
import dev.mcpstdio.core.containment.ContainerRun;
import dev.mcpstdio.core.containment.InvalidContainerCommandException;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServerDefinition;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanClassLoaderAware;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.ResourceLoaderAware;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.env.Environment;
import org.springframework.core.io.DefaultResourceLoader;
import org.springframework.core.io.ResourceLoader;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Registers one {@link McpStdioServer} bean per configured server, named
 * {@code mcpStdioServer.<name>}, after checking the whole configuration: an error stops
 * start-up here, before any process starts.
 *
 * @author mcp-stdio authors
 */
class McpStdioServersRegistrar implements ImportBeanDefinitionRegistrar, EnvironmentAware, ResourceLoaderAware,
		BeanClassLoaderAware, BeanFactoryAware {

	/** The prefix of each server bean's name. */
	static final String BEAN_NAME_PREFIX = "mcpStdioServer.";

	private static final Log logger = LogFactory.getLog(McpStdioServersRegistrar.class);

	private Environment environment;

	private ResourceLoader resourceLoader = new DefaultResourceLoader();

	private @Nullable ClassLoader classLoader;

	private BeanFactory beanFactory;

	@Override
	public void setEnvironment(Environment environment) {
		this.environment = environment;
	}

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		this.beanFactory = beanFactory;
	}

	@Override
	public void setResourceLoader(ResourceLoader resourceLoader) {
		this.resourceLoader = resourceLoader;
	}

	@Override
	public void setBeanClassLoader(ClassLoader classLoader) {
		this.classLoader = classLoader;
	}

	@Override
	public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
		ProblemReport problems = new ProblemReport();
		// once per start-up: the orphan guard configures the servers too, silently
		Configured configured = configure(this.environment, this.resourceLoader, this.classLoader, problems,
				logger::info);
		problems.throwIfAny();
		for (McpStdioServerDefinition definition : configured.definitions()) {
			RootBeanDefinition bean = new RootBeanDefinition(McpStdioServer.class);
			String beanName = BEAN_NAME_PREFIX + definition.name();
			bean.setInstanceSupplier(() -> new McpStdioServer(definition, host(beanName)));
			registry.registerBeanDefinition(beanName, bean);
		}
		if (configured.springAiStdio() && !configured.adopting()) {
			warnAboutDuplicates(configured.properties(), configured.springAi());
		}
		warnWhenStopCannotFit(Binder.get(this.environment), configured.definitions());
		warnAboutHostAccess(configured.definitions());
	}

	/**
	 * Return the host for a server bean, recorded as a dependency so that the host is
	 * closed only after the server was destroyed.
	 */
	private ServerHost host(String serverBeanName) {
		ServerHost host = this.beanFactory.getBean(ServerHost.class);
		if (this.beanFactory instanceof ConfigurableListableBeanFactory configurable) {
			for (String hostName : configurable.getBeanNamesForType(ServerHost.class)) {
				configurable.registerDependentBean(hostName, serverBeanName);
			}
		}
		return host;
	}

	/**
	 * Bind, check and resolve the configured servers, those of Spring AI adopted
	 * included.
	 * @param environment the environment
	 * @param resourceLoader loads a servers-configuration file
	 * @param classLoader tells whether Spring AI's stdio transport is there
	 * @param problems where configuration errors go
	 * @param notes where what is worth a line at INFO goes (what was adopted, who
	 * inherits the environment)
	 * @return the servers without errors, and what they were resolved from
	 */
	static Configured configure(Environment environment, ResourceLoader resourceLoader,
			@Nullable ClassLoader classLoader, ProblemReport problems, Consumer<String> notes) {
		Binder binder = Binder.get(environment);
		McpStdioProperties properties = PropertiesBinding.bind(binder, problems);
		boolean springAiStdio = SpringAiStdio.isActive(environment, classLoader);
		boolean adopting = springAiStdio && properties.isAdoptSpringAiStdio();
		new RawPropertyCheck(environment, adopting, problems).check();
		SpringAiServers springAi = springAiServers(binder, environment);
		Map<String, ConfiguredServer> servers = new ConfiguredServers(resourceLoader,
				(name) -> variable(environment, name), problems, notes)
			.collect(properties, adopting ? springAi : null);
		List<McpStdioServerDefinition> definitions = new ServerDefinitions(properties, System.getenv(),
				PlaceholderSecrets.find(environment, adopting), problems, notes)
			.resolve(servers.values());
		return new Configured(properties, springAi, springAiStdio, adopting, definitions);
	}

	private static @Nullable String variable(Environment environment, String name) {
		try {
			return environment.getProperty(name);
		}
		catch (IllegalArgumentException ex) {
			// its value has a placeholder of its own that cannot be resolved
			return null;
		}
	}

	private static SpringAiServers springAiServers(Binder binder, Environment environment) {
		Map<String, Connection> connections = binder
			.bind(SpringAiStdio.CONNECTIONS, Bindable.mapOf(String.class, Connection.class))
			.orElse(Map.of());
		return new SpringAiServers(connections, environment.getProperty(SpringAiStdio.SERVERS_CONFIGURATION));
	}

	private void warnAboutDuplicates(McpStdioProperties properties, SpringAiServers springAi) {
		for (String name : springAi.connections().keySet()) {
			if (properties.getServers().containsKey(name)) {
				logger.warn("MCP server '" + name + "' is configured both under mcp.stdio.servers and under "
						+ SpringAiStdio.CONNECTIONS + " with " + McpStdioProperties.PREFIX
						+ ".adopt-spring-ai-stdio=false: two processes start and Spring AI sees the server twice. "
						+ "Remove one, or let mcp-stdio adopt Spring AI's servers");
			}
		}
	}

	private void warnWhenStopCannotFit(Binder binder, List<McpStdioServerDefinition> definitions) {
		// Spring Boot's default; all servers stop in parallel, so each one's worst case
		// must fit, not their sum
		Duration phaseTimeout = binder.bind("spring.lifecycle.timeout-per-shutdown-phase", Duration.class)
			.orElse(Duration.ofSeconds(30));
		for (McpStdioServerDefinition definition : definitions) {
			if (!definition.enabled()) {
				continue;
			}
			Duration worstCase = definition.spec().shutdown().worstCase();
			if (worstCase.compareTo(phaseTimeout) > 0) {
				logger.warn("MCP server '" + definition.name() + "' may take up to " + worstCase.toMillis()
						+ " ms to stop, longer than spring.lifecycle.timeout-per-shutdown-phase ("
						+ phaseTimeout.toMillis() + " ms): raise that timeout or lower mcp.stdio.servers."
						+ definition.name() + ".shutdown.*; the stop still completes before the context is destroyed");
			}
		}
	}

	/**
	 * Warn once per option about containers that are given the host itself: the
	 * configuration is trusted, but such an option is easy to copy without noticing.
	 */
	private void warnAboutHostAccess(List<McpStdioServerDefinition> definitions) {
		for (McpStdioServerDefinition definition : definitions) {
			StdioServerSpec spec = definition.spec();
			if (!definition.enabled() || !spec.container().enabled()) {
				continue;
			}
			ContainerRun run;
			try {
				run = ContainerRun.recognise(spec.command(), spec.args());
			}
			catch (InvalidContainerCommandException ex) {
				// reported when the server starts
				continue;
			}
			if (run == null) {
				continue;
			}
			for (String option : run.hostAccess()) {
				logger.warn("MCP server '" + definition.name() + "' runs its container with " + option + ", which "
						+ reach(option) + "; mcp-stdio runs it as configured, but make sure the server " + "needs it");
			}
		}
	}

	private static String reach(String option) {
		if (option.equals("--privileged")) {
			return "gives it every capability and device of the host";
		}
		if (option.startsWith("--pid")) {
			return "lets it see and signal every process of the host";
		}
		if (option.startsWith("--network") || option.startsWith("--net")) {
			return "puts it on the host's network, its loopback services included";
		}
		if (option.endsWith("=host")) {
			return "shares a namespace of the host with it";
		}
		return "mounts the host's whole file system into it";
	}

	/**
	 * The configured servers and what they were resolved from.
	 *
	 * @param properties the bound properties
	 * @param springAi Spring AI's stdio servers
	 * @param springAiStdio whether Spring AI's stdio transport is active
	 * @param adopting whether its servers are adopted
	 * @param definitions the servers without errors
	 */
	record Configured(McpStdioProperties properties, SpringAiServers springAi, boolean springAiStdio, boolean adopting,
			List<McpStdioServerDefinition> definitions) {

	}

}
