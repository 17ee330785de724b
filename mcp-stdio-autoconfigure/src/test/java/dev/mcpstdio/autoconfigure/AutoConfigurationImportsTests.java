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

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionEvaluationReport;
import org.springframework.boot.autoconfigure.condition.ConditionEvaluationReport.ConditionAndOutcomes;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.core.type.classreading.MetadataReaderFactory;
import org.springframework.core.type.classreading.SimpleMetadataReaderFactory;
import org.springframework.util.ClassUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that {@code META-INF/spring/...AutoConfiguration.imports} names every
 * auto-configuration of the module and that each applies in an application that enables
 * auto-configuration, on whichever Spring Boot line the build runs against.
 *
 * @author mcp-stdio authors
 */
class AutoConfigurationImportsTests {

	private final ClassLoader classLoader = getClass().getClassLoader();

	@Test
	void importsNameEveryAutoConfigurationOfTheModuleOnce() throws IOException {
		// read the class files, not the classes: a scanner would drop those whose
		// conditions do not match here
		String main = McpStdioAutoConfiguration.class.getProtectionDomain().getCodeSource().getLocation().toString();
		MetadataReaderFactory readers = new SimpleMetadataReaderFactory(this.classLoader);
		List<String> declared = new ArrayList<>();
		for (Resource resource : new PathMatchingResourcePatternResolver(this.classLoader)
			.getResources("classpath*:dev/mcpstdio/**/*.class")) {
			// the module's own classes, not test classes that may be annotated too
			if (resource.getURL().toString().startsWith(main)) {
				AnnotationMetadata metadata = readers.getMetadataReader(resource).getAnnotationMetadata();
				if (metadata.hasAnnotation(AutoConfiguration.class.getName())) {
					declared.add(metadata.getClassName());
				}
			}
		}
		assertThat(declared).hasSizeGreaterThanOrEqualTo(6);
		assertThat(imported()).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(declared);
	}

	@Test
	void everyImportedAutoConfigurationApplies() {
		new WebApplicationContextRunner().withUserConfiguration(App.class)
			.withPropertyValues("management.endpoints.web.exposure.include=mcpservers")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				Map<String, ConditionAndOutcomes> outcomes = ConditionEvaluationReport.get(context.getBeanFactory())
					.getConditionAndOutcomesBySource();
				for (String autoConfiguration : imported()) {
					assertThat(outcomes).as(autoConfiguration).containsKey(autoConfiguration);
					assertThat(outcomes.get(autoConfiguration).isFullMatch())
						.as("%s applied: %s", autoConfiguration, outcomes.get(autoConfiguration))
						.isTrue();
					assertThat(context).hasSingleBean(ClassUtils.forName(autoConfiguration, this.classLoader));
				}
			});
	}

	private List<String> imported() {
		return ImportCandidates.load(AutoConfiguration.class, this.classLoader)
			.getCandidates()
			.stream()
			.filter((name) -> name.startsWith("dev.mcpstdio."))
			.toList();
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class App {

	}

}
