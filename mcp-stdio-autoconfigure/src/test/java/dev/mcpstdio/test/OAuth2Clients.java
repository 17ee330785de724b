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

import java.time.Instant;

import org.springframework.security.authentication.TestingAuthenticationToken;
import org.springframework.security.core.authority.AuthorityUtils;
import org.springframework.security.oauth2.client.OAuth2AuthorizedClient;
import org.springframework.security.oauth2.client.OAuth2AuthorizedClientService;
import org.springframework.security.oauth2.client.registration.ClientRegistration;
import org.springframework.security.oauth2.core.AuthorizationGrantType;
import org.springframework.security.oauth2.core.OAuth2AccessToken;

/**
 * The OAuth2 client registration {@code github} of the per-user tests, and the users who
 * authorized it, as Spring Security's in-memory authorized client service keeps them.
 *
 * @author mcp-stdio authors
 */
public final class OAuth2Clients {

	private OAuth2Clients() {
	}

	/**
	 * Return the registration {@code github}, its endpoints unreachable.
	 * @return the registration
	 */
	public static ClientRegistration registration() {
		return ClientRegistration.withRegistrationId("github")
			.clientId("client")
			.clientSecret("secret")
			.authorizationGrantType(AuthorizationGrantType.AUTHORIZATION_CODE)
			.redirectUri("{baseUrl}/login/oauth2/code/{registrationId}")
			.authorizationUri("https://github.invalid/login/oauth/authorize")
			.tokenUri("https://github.invalid/login/oauth/access_token")
			.build();
	}

	/**
	 * Record that a user authorized the client, with an access token valid for an hour.
	 * @param service the service
	 * @param user the user's name
	 * @param token the access token
	 */
	public static void authorize(OAuth2AuthorizedClientService service, String user, String token) {
		OAuth2AccessToken accessToken = new OAuth2AccessToken(OAuth2AccessToken.TokenType.BEARER, token, Instant.now(),
				Instant.now().plusSeconds(3600));
		service.saveAuthorizedClient(new OAuth2AuthorizedClient(registration(), user, accessToken),
				new TestingAuthenticationToken(user, null, AuthorityUtils.createAuthorityList("USER")));
	}

}
