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
package dev.mcpstdio.sample;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.xpath.XPath;
import javax.xml.xpath.XPathConstants;
import javax.xml.xpath.XPathFactory;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.w3c.dom.Document;
import org.w3c.dom.NodeList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The POMs that a user's build reads from Maven Central, as the build writes them (the
 * flattened POMs of the published modules, built before this one in the reactor): each
 * stands alone, every version resolved, with what Central asks for: name, description,
 * url, licence, scm and developers.
 *
 * @author mcp-stdio authors
 */
class PublishedPomsTests {

	@ParameterizedTest
	@ValueSource(strings = { "mcp-stdio-autoconfigure", "mcp-stdio-starter" })
	void thePublishedPomHasWhatMavenCentralAsksForAndStandsAlone(String module) throws Exception {
		Path pom = Path.of("..", module, ".flattened-pom.xml");
		assertThat(pom).as("the flattened POM of " + module + ": build it in the reactor (mvn verify at the root)")
			.isRegularFile();
		String text = Files.readString(pom, StandardCharsets.UTF_8);
		assertThat(text).as("placeholders left in " + pom).doesNotContain("${");
		Document document = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
		XPath xpath = XPathFactory.newInstance().newXPath();
		for (String required : new String[] { "groupId", "artifactId", "version", "name", "description", "url",
				"licenses/license/name", "licenses/license/url", "developers/developer/name", "scm/url",
				"scm/connection", "scm/developerConnection" }) {
			String value = xpath.evaluate("/*[local-name()='project']/" + local(required), document).strip();
			assertThat(value).as(required + " of " + pom).isNotEmpty();
		}
		assertThat(xpath.evaluate("/*[local-name()='project']/" + local("artifactId"), document)).isEqualTo(module);
		assertThat((NodeList) xpath.evaluate("/*[local-name()='project']/" + local("parent"), document,
				XPathConstants.NODESET))
			.as("a parent in " + pom + ", which Central would also need")
			.satisfies((parents) -> assertThat(parents.getLength()).isZero());
		NodeList dependencies = (NodeList) xpath.evaluate(
				"/*[local-name()='project']/" + local("dependencies/dependency"), document, XPathConstants.NODESET);
		assertThat(dependencies.getLength()).isPositive();
		for (int i = 0; i < dependencies.getLength(); i++) {
			String artifact = xpath.evaluate(local("artifactId"), dependencies.item(i));
			assertThat(xpath.evaluate(local("version"), dependencies.item(i)).strip())
				.as("the version of " + artifact + " in " + pom)
				.isNotEmpty();
		}
	}

	/** An XPath of elements by their local names: the POM has a default namespace. */
	private static String local(String path) {
		return String.join("/",
				java.util.Arrays.stream(path.split("/")).map((name) -> "*[local-name()='" + name + "']").toList());
	}

}
