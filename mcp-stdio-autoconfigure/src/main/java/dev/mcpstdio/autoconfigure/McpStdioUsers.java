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

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import org.jspecify.annotations.Nullable;

import org.springframework.security.core.Authentication;

/**
 * Decides the key of a user's per-user instances and supplies their user-env values.
 *
 * @author mcp-stdio authors
 */
public interface McpStdioUsers {

	/**
	 * Return the key of a user's instances, shown by the endpoint: opaque and stable,
	 * never the user's name or a token.
	 * @param user the authenticated user
	 * @return the key
	 */
	String key(Authentication user);

	/**
	 * Return the value of a {@code user-env} entry for a user, for references other than
	 * {@code oauth2:<registration-id>}.
	 * @param server the server's name
	 * @param reference the entry's value, such as {@code vault:github}
	 * @param user the authenticated user
	 * @return the value, or {@code null} when this bean has none
	 */
	default @Nullable String value(String server, String reference, Authentication user) {
		return null;
	}

	/**
	 * Return the default: a key that is an HMAC-SHA256 of the user's name under a random
	 * secret of this JVM, stable while the application runs.
	 * @return the users
	 */
	static McpStdioUsers keyedHash() {
		byte[] secret = new byte[32];
		new SecureRandom().nextBytes(secret);
		return (user) -> {
			try {
				Mac mac = Mac.getInstance("HmacSHA256");
				mac.init(new SecretKeySpec(secret, "HmacSHA256"));
				byte[] hash = mac.doFinal(user.getName().getBytes(StandardCharsets.UTF_8));
				return Base64.getUrlEncoder().withoutPadding().encodeToString(Arrays.copyOf(hash, 12));
			}
			catch (GeneralSecurityException ex) {
				throw new IllegalStateException("No HmacSHA256 in this JVM", ex);
			}
		};
	}

}
