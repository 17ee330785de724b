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

import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;
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
	void theCoreShowsOnlyItsListedPublicTypes() {
		// what a user or a higher layer needs is public; a new public type is a decision,
		// made here
		Set<String> publicTypes = classes.stream()
			.filter((type) -> type.getPackageName().startsWith("dev.mcpstdio.core"))
			.filter((type) -> type.isTopLevelClass() && type.getModifiers().contains(JavaModifier.PUBLIC))
			.map(JavaClass::getName)
			.collect(Collectors.toCollection(TreeSet::new));
		assertThat(publicTypes).containsExactlyInAnyOrder("dev.mcpstdio.core.process.CommandLocator",
				"dev.mcpstdio.core.ExitCause", "dev.mcpstdio.core.ExitInfo", "dev.mcpstdio.core.JsonRpcLine",
				"dev.mcpstdio.core.MessageListener", "dev.mcpstdio.core.ServerHost",
				"dev.mcpstdio.core.ShutdownTimeouts", "dev.mcpstdio.core.StdioServerProcess",
				"dev.mcpstdio.core.StdioServerSpec", "dev.mcpstdio.core.containment.ContainerRun",
				"dev.mcpstdio.core.containment.ContainerSettings", "dev.mcpstdio.core.containment.Containment",
				"dev.mcpstdio.core.containment.Containments", "dev.mcpstdio.core.containment.OrphanGuard",
				"dev.mcpstdio.core.secrets.SecretSanitizer", "dev.mcpstdio.core.secrets.SecretValues",
				"dev.mcpstdio.core.process.Membership", "dev.mcpstdio.core.process.Platform",
				"dev.mcpstdio.core.process.ProcReader", "dev.mcpstdio.core.process.ProcessMarkers",
				"dev.mcpstdio.core.process.ProcessScanner", "dev.mcpstdio.core.process.ProcessTable",
				"dev.mcpstdio.core.process.ProcessTree", "dev.mcpstdio.core.process.TreeTerminator",
				"dev.mcpstdio.core.support.Waits");
		assertThat(publicTypes).hasSizeLessThanOrEqualTo(25);
	}

	@Test
	void layersUseOnlyTheLayersBelow() {
		layeredArchitecture().consideringOnlyDependenciesInLayers()
			.layer("exceptions")
			.definedBy("dev.mcpstdio")
			.layer("support")
			.definedBy("dev.mcpstdio.core.support..")
			.layer("secrets")
			.definedBy("dev.mcpstdio.core.secrets..")
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
			.whereLayer("secrets")
			.mayOnlyBeAccessedByLayers("core", "lifecycle", "autoconfigure", "actuate", "ai")
			.check(classes);
	}

	@Test
	void theUsageSupervisorSeesItsServerOnlyThroughItsView() {
		noClasses().that()
			.haveNameMatching("dev\\.mcpstdio\\.lifecycle\\.UsageSupervisor(\\$.*)?")
			.should()
			.dependOnClassesThat()
			.haveNameMatching("dev\\.mcpstdio\\.lifecycle\\.(ServerController|ServerConnection|McpStdioServer)(\\$.*)?")
			.check(classes);
	}

	@Test
	void theStateMachineNeverReachesItsClientSide() {
		noClasses().that()
			.haveNameMatching("dev\\.mcpstdio\\.lifecycle\\.ServerController(\\$.*)?")
			.should()
			.dependOnClassesThat()
			.haveNameMatching(
					"dev\\.mcpstdio\\.lifecycle\\.(ServerConnection|McpStdioServer|UserInstances|RequestObserver)(\\$.*)?")
			.check(classes);
	}

}
