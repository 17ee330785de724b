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

package dev.mcpstdio;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The arrows between the packages: no cycles, a core without Spring, and every layer
 * below the ones that use it. A failure names the arrow that broke a rule.
 *
 * @author mcp-stdio authors
 */
class ArchitectureTests {

	private static final JavaClasses classes = new ClassFileImporter()
		.withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
		.importPackages("dev.mcpstdio");

	@Test
	void packagesAreFreeOfCycles() {
		slices().matching("dev.mcpstdio.(**)").should().beFreeOfCycles().check(classes);
	}

	@Test
	void coreIsFreeOfSpring() {
		noClasses().that()
			.resideInAPackage("dev.mcpstdio.core..")
			.should()
			.dependOnClassesThat()
			.resideInAPackage("org.springframework..")
			.check(classes);
	}

	@Test
	void layersUseOnlyTheLayersBelow() {
		layeredArchitecture().consideringOnlyDependenciesInLayers()
			.layer("exceptions")
			.definedBy("dev.mcpstdio")
			.layer("support")
			.definedBy("dev.mcpstdio.core.support..")
			.layer("io")
			.definedBy("dev.mcpstdio.core.io..")
			.layer("process")
			.definedBy("dev.mcpstdio.core.process..")
			.layer("containment")
			.definedBy("dev.mcpstdio.core.containment..")
			.layer("core")
			.definedBy("dev.mcpstdio.core")
			.layer("lifecycle")
			.definedBy("dev.mcpstdio.lifecycle..")
			.layer("autoconfigure")
			.definedBy("dev.mcpstdio.autoconfigure..")
			.layer("actuate")
			.definedBy("dev.mcpstdio.actuate..")
			.layer("ai")
			.definedBy("dev.mcpstdio.ai..")
			.whereLayer("ai")
			.mayNotBeAccessedByAnyLayer()
			.whereLayer("actuate")
			.mayNotBeAccessedByAnyLayer()
			.whereLayer("autoconfigure")
			.mayOnlyBeAccessedByLayers("actuate", "ai")
			.whereLayer("lifecycle")
			.mayOnlyBeAccessedByLayers("autoconfigure", "actuate", "ai")
			.whereLayer("core")
			.mayOnlyBeAccessedByLayers("lifecycle", "autoconfigure", "actuate", "ai")
			.whereLayer("containment")
			.mayOnlyBeAccessedByLayers("core", "lifecycle", "autoconfigure", "actuate", "ai")
			.whereLayer("process")
			.mayOnlyBeAccessedByLayers("containment", "core", "lifecycle", "autoconfigure", "actuate", "ai")
			.whereLayer("io")
			.mayOnlyBeAccessedByLayers("core", "lifecycle", "autoconfigure", "actuate", "ai")
			.check(classes);
	}

}
