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

package dev.mcpstdio.lifecycle.forked;

import java.util.stream.Collectors;
import java.util.stream.Stream;

import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.security.authentication.TestingAuthenticationToken;
import org.springframework.security.core.authority.AuthorityUtils;
import org.springframework.security.core.context.SecurityContextHolder;

/**
 * A small application that a test runs in its own JVM, to stop it the ways a real one
 * stops: SIGTERM, or {@link SpringApplication#exit} with {@code --forked.exit=true}. With
 * {@code --forked.users=alice,bob} each per-user server runs an instance for each of
 * them.
 *
 * @author mcp-stdio authors
 */
@SpringBootApplication
public class ForkedMcpApplication {

	/** The line printed once every server started, followed by name=pid pairs. */
	public static final String READY = "FORKED-READY";

	public static void main(String[] args) {
		ConfigurableApplicationContext context = SpringApplication.run(ForkedMcpApplication.class, args);
		String[] users = context.getEnvironment().getProperty("forked.users", String[].class, new String[0]);
		String servers = context.getBean(McpStdioServers.class)
			.list()
			.stream()
			.flatMap((server) -> (server.definition().demand().perUser() == null) ? Stream.of(server)
					: Stream.of(users).map((user) -> instance(server, user)))
			.map((server) -> server.name() + "=" + server.pid())
			.collect(Collectors.joining(","));
		System.out.println(READY + " " + servers);
		System.out.flush();
		if (context.getEnvironment().getProperty("forked.exit", Boolean.class, false)) {
			System.exit(SpringApplication.exit(context, () -> 42));
		}
	}

	/** The running instance of a per-user server for a user of the given name. */
	private static McpStdioServer instance(McpStdioServer server, String user) {
		SecurityContextHolder.getContext()
			.setAuthentication(new TestingAuthenticationToken(user, null, AuthorityUtils.createAuthorityList("USER")));
		try {
			McpStdioServer instance = server.instance();
			instance.startServer();
			return instance;
		}
		finally {
			SecurityContextHolder.clearContext();
		}
	}

}
