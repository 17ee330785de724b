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

import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaConstructor;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import dev.mcpstdio.lifecycle.McpStdioServerDefinition;
import dev.mcpstdio.lifecycle.RestartPolicy;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfiguration;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.constructors;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noFields;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The rules of the code's shape: the arrows between the packages (no cycles, a core
 * without Spring, every layer below the ones that use it), the core's public types, one
 * owner for each fact (a request's ledger, a server's state, a setting's default) and the
 * size of constructors. A failure names what broke a rule.
 *
 * @author mcp-stdio authors
 */
class ArchitectureTests {

	private static final JavaClasses productClasses = new ClassFileImporter()
		.withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
		.importPackages("dev.mcpstdio");

	@Test
	void packagesAreFreeOfCycles() {
		slices().matching("dev.mcpstdio.(**)").should().beFreeOfCycles().check(productClasses);
	}

	@Test
	void coreIsFreeOfSpring() {
		noClasses().that()
			.resideInAPackage("dev.mcpstdio.core..")
			.should()
			.dependOnClassesThat()
			.resideInAPackage("org.springframework..")
			.check(productClasses);
	}

	@Test
	void theCoreShowsOnlyItsListedPublicTypes() {
		// what a user or a higher layer needs is public; a new public type is a decision,
		// made here
		Set<String> publicTypes = productClasses.stream()
			.filter((type) -> type.getPackageName().startsWith("dev.mcpstdio.core"))
			.filter((type) -> type.isTopLevelClass() && type.getModifiers().contains(JavaModifier.PUBLIC))
			.map(JavaClass::getName)
			.collect(Collectors.toCollection(TreeSet::new));
		assertThat(publicTypes).containsExactlyInAnyOrder("dev.mcpstdio.core.ServerHost",
				"dev.mcpstdio.core.server.ExitCause", "dev.mcpstdio.core.server.ExitInfo",
				"dev.mcpstdio.core.server.InFlightRequest", "dev.mcpstdio.core.server.MessageListener",
				"dev.mcpstdio.core.server.ProcessLauncher", "dev.mcpstdio.core.server.ShutdownTimeouts",
				"dev.mcpstdio.core.server.StdioServerProcess", "dev.mcpstdio.core.server.StdioServerSpec",
				"dev.mcpstdio.core.server.StdioServerSpecBuilder", "dev.mcpstdio.core.server.io.JsonRpcLine",
				"dev.mcpstdio.core.server.io.LineSink", "dev.mcpstdio.core.server.io.ProcessPipes",
				"dev.mcpstdio.core.server.io.ServerPipes", "dev.mcpstdio.core.containment.ContainerRun",
				"dev.mcpstdio.core.containment.ContainerSettings", "dev.mcpstdio.core.containment.Containment",
				"dev.mcpstdio.core.containment.Containments", "dev.mcpstdio.core.containment.OrphanGuard",
				"dev.mcpstdio.core.secrets.SecretSanitizer", "dev.mcpstdio.core.secrets.SecretValues",
				"dev.mcpstdio.core.tree.CommandLocator", "dev.mcpstdio.core.tree.Membership",
				"dev.mcpstdio.core.tree.Platform", "dev.mcpstdio.core.tree.ProcReader",
				"dev.mcpstdio.core.tree.ProcessMarkers", "dev.mcpstdio.core.tree.ProcessScanner",
				"dev.mcpstdio.core.tree.ProcessTable", "dev.mcpstdio.core.tree.ProcessTree",
				"dev.mcpstdio.core.tree.TreeTerminator", "dev.mcpstdio.core.support.Threads",
				"dev.mcpstdio.core.support.Waits");
		// 25 before issue 46 split the core: what crosses from core.server to its
		// pipes (core.server.io: the host's pipes and one process's, their sink), the
		// launcher the host hands its parts, Threads, the ledger's entry that the
		// observation and the client read, and the spec's builder (its own class: it
		// requires every value, the spec holds them): 32
	}

	@Test
	void noConstructorOfTheCoreTakesMoreThanSixValues() {
		// more values are a group that wants a name (a record of what belongs together)
		constructors().that()
			.areDeclaredInClassesThat()
			.resideInAPackage("dev.mcpstdio.core..")
			.should(takeAtMostSixValues())
			.check(productClasses);
	}

	private static ArchCondition<JavaConstructor> takeAtMostSixValues() {
		return new ArchCondition<>("take at most 6 values") {

			@Override
			public void check(JavaConstructor constructor, ConditionEvents events) {
				// an inner class's constructor is also handed its outer instance
				int values = constructor.getRawParameterTypes().size()
						- ((constructor.getOwner().isInnerClass()) ? 1 : 0);
				if (values > 6) {
					events.add(SimpleConditionEvent.violated(constructor,
							constructor.getFullName() + " takes " + values + " values"));
				}
			}

		};
	}

	@Test
	void theConfigurationIsOnePipelineAndItsReloadsSitAboveIt() {
		// the steps of the pipeline in their package, the reloads in theirs
		for (String step : new String[] { "ServersBinder", "ServerSources", "ServerChecks", "ServerDefinitions",
				"ServersFile", "ScopedBinders", "Problems", "ConfiguredServers", "McpStdioProperties" }) {
			assertThat(productClasses.contain("dev.mcpstdio.autoconfigure.config." + step)).as(step).isTrue();
		}
		assertThat(productClasses.contain("dev.mcpstdio.autoconfigure.reload.ServerReloads")).isTrue();
		// the pipeline never reaches up to the reloads or the auto-configurations
		noClasses().that()
			.resideInAPackage("dev.mcpstdio.autoconfigure.config..")
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage("dev.mcpstdio.autoconfigure", "dev.mcpstdio.autoconfigure.reload..")
			.check(productClasses);
		noClasses().that()
			.resideInAPackage("dev.mcpstdio.autoconfigure.reload..")
			.should()
			.dependOnClassesThat()
			.resideInAPackage("dev.mcpstdio.autoconfigure")
			.check(productClasses);
		// and nothing below the auto-configuration reaches either
		noClasses().that()
			.resideOutsideOfPackage("dev.mcpstdio.autoconfigure..")
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage("dev.mcpstdio.autoconfigure.config..", "dev.mcpstdio.autoconfigure.reload..")
			.check(productClasses);
	}

	@Test
	void theCoreHasNoDefaultsOfItsOwn() {
		// a setting's default is on its property's field; the core's and the lifecycle's
		// builders require every value
		noFields().that()
			.areDeclaredInClassesThat()
			.resideInAnyPackage("dev.mcpstdio.core..", "dev.mcpstdio.lifecycle..")
			.and()
			.areStatic()
			.should()
			.haveNameMatching("DEFAULTS?(_.*)?")
			.check(productClasses);
	}

	@Test
	void noDefinitionOfAServerIsAConstant() {
		// a definition's values come from the properties, mapped by ServerDefinitions: a
		// constant one (such as a policy or limits "by default") would be a second
		// default of a setting
		noFields().that()
			.areStatic()
			.should()
			.haveRawType(McpStdioServerDefinition.class)
			.orShould()
			.haveRawType(RestartPolicy.class)
			.orShould()
			.haveRawType(McpStdioServerDefinition.Demand.class)
			.orShould()
			.haveRawType(McpStdioServerDefinition.Limits.class)
			.orShould()
			.haveRawType(McpStdioServerDefinition.PerUser.class)
			.check(productClasses);
	}

	@Test
	void coresRootHoldsOnlyTheServerHost() {
		classes().that()
			.resideInAPackage("dev.mcpstdio.core")
			.and()
			.areTopLevelClasses()
			.should()
			.haveSimpleName("ServerHost")
			.orShould()
			.haveSimpleName("package-info")
			.check(productClasses);
	}

	@Test
	void theServerProcessNeverReadsItsHost() {
		noClasses().that()
			.resideInAPackage("dev.mcpstdio.core.server..")
			.should()
			.dependOnClassesThat()
			.resideInAPackage("dev.mcpstdio.core")
			.check(productClasses);
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
			.layer("tree")
			.definedBy("dev.mcpstdio.core.tree..")
			.layer("containment")
			.definedBy("dev.mcpstdio.core.containment..")
			.layer("server")
			.definedBy("dev.mcpstdio.core.server..")
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
			.whereLayer("autoconfigure")
			.mayNotBeAccessedByAnyLayer()
			.whereLayer("ai")
			.mayOnlyBeAccessedByLayers("autoconfigure")
			.whereLayer("actuate")
			.mayOnlyBeAccessedByLayers("autoconfigure")
			.whereLayer("lifecycle")
			.mayOnlyBeAccessedByLayers("autoconfigure", "actuate", "ai")
			.whereLayer("core")
			.mayOnlyBeAccessedByLayers("lifecycle", "autoconfigure", "actuate", "ai")
			.whereLayer("server")
			.mayOnlyBeAccessedByLayers("core", "lifecycle", "autoconfigure", "actuate", "ai")
			.whereLayer("containment")
			.mayOnlyBeAccessedByLayers("server", "core", "lifecycle", "autoconfigure", "actuate", "ai")
			.whereLayer("tree")
			.mayOnlyBeAccessedByLayers("containment", "server", "core", "lifecycle", "autoconfigure", "actuate", "ai")
			.whereLayer("secrets")
			.mayOnlyBeAccessedByLayers("server", "core", "lifecycle", "autoconfigure", "actuate", "ai")
			.check(productClasses);
	}

	@Test
	void featuresNeverImportTheirAutoConfiguration() {
		// ai and actuate hold features; what makes beans of them sits above, in
		// autoconfigure
		noClasses().that()
			.resideInAnyPackage("dev.mcpstdio.ai..", "dev.mcpstdio.actuate..")
			.should()
			.dependOnClassesThat()
			.resideInAPackage("dev.mcpstdio.autoconfigure..")
			.check(productClasses);
	}

	@Test
	void everyAutoConfigurationLivesInAutoconfigure() {
		classes().that()
			.areAnnotatedWith(AutoConfiguration.class)
			.should()
			.resideInAPackage("dev.mcpstdio.autoconfigure..")
			.check(productClasses);
	}

	@Test
	void everyExceptionOfTheProductExtendsTheRoot() {
		// what a caller can catch; the core's internal signals (an I/O timeout of a
		// write, a command not found) are turned into these before they leave it
		classes().that()
			.areAssignableTo(Throwable.class)
			.and()
			.doNotHaveFullyQualifiedName(McpStdioException.class.getName())
			.and()
			.arePublic()
			.and()
			.resideOutsideOfPackage("dev.mcpstdio.core..")
			.should()
			.beAssignableTo(McpStdioException.class)
			.andShould()
			.resideInAPackage("dev.mcpstdio")
			.check(productClasses);
	}

	@Test
	void aRequestInFlightIsKeptOnlyInTheLedgerOfItsProcess() {
		// One request in flight is one entry of core.server's RequestLedger, handed with
		// its response or its end to the observation and the client. Above the core, a
		// class that reads the server's lines or requests' entries has them handed to
		// it: a map or collection it keeps could only be a second index of the requests
		// in flight (there were three: the observations', the transport's and the
		// ledger)
		DescribedPredicate<JavaClass> readsRequests = DescribedPredicate.describe(
				"read the server's lines or requests' entries",
				(type) -> type.getDirectDependenciesFromSelf()
					.stream()
					.anyMatch((dependency) -> dependency.getTargetClass()
						.getName()
						.matches("dev\\.mcpstdio\\.core\\.server\\.(io\\.JsonRpcLine|InFlightRequest)(\\$.*)?")));
		noFields().that()
			.areNotStatic()
			.and()
			.areDeclaredInClassesThat(
					JavaClass.Predicates.resideOutsideOfPackage("dev.mcpstdio.core..").and(readsRequests))
			.should()
			.haveRawType(JavaClass.Predicates.assignableTo(Map.class))
			.orShould()
			.haveRawType(JavaClass.Predicates.assignableTo(Collection.class))
			.check(productClasses);
	}

	@Test
	void theUsageSupervisorSeesItsServerOnlyThroughItsView() {
		noClasses().that()
			.haveNameMatching("dev\\.mcpstdio\\.lifecycle\\.UsageSupervisor(\\$.*)?")
			.should()
			.dependOnClassesThat()
			.haveNameMatching(
					"dev\\.mcpstdio\\.lifecycle\\.(ServerController|ServerStarts|StartAttempts|ServerStops|ServerStatus"
							+ "|ServerConnection|McpStdioServer)(\\$.*)?")
			.check(productClasses);
	}

	@Test
	void theStateMachineNeverReachesItsClientSide() {
		noClasses().that()
			.haveNameMatching(
					"dev\\.mcpstdio\\.lifecycle\\.(ServerController|ServerStatus|ServerStarts|StartAttempts|ServerStops|StartTally)(\\$.*)?")
			.should()
			.dependOnClassesThat()
			.haveNameMatching(
					"dev\\.mcpstdio\\.lifecycle\\.(ServerConnection|McpStdioServer|UserInstances|RequestObserver)(\\$.*)?")
			.check(productClasses);
	}

	@Test
	void onlyTheStateMachineChangesTheState() {
		// every change of a server's state goes through ServerController.setState(),
		// under
		// its lock: the sends waiting for a settled state look again, and the usage
		// supervisor and the listeners are told; a write elsewhere would skip them
		noClasses().that()
			.doNotHaveFullyQualifiedName("dev.mcpstdio.lifecycle.ServerController")
			.should()
			.callMethod("dev.mcpstdio.lifecycle.ServerStatus", "state", "dev.mcpstdio.lifecycle.ServerState")
			.check(productClasses);
	}

	@Test
	void theStateMachineHoldsFewFieldsAndOneMutable() {
		// issue 46 found 25 fields, 18 of them mutable, in ServerController; its starts,
		// stops, status and client terms are classes of their own now, and what it keeps
		// is its collaborators and whether the server should run
		JavaClass controller = productClasses.get("dev.mcpstdio.lifecycle.ServerController");
		Set<String> fields = controller.getFields()
			.stream()
			.filter((field) -> !field.getModifiers().contains(JavaModifier.STATIC))
			.map((field) -> field.getName())
			.collect(Collectors.toCollection(TreeSet::new));
		Set<String> mutable = controller.getFields()
			.stream()
			.filter((field) -> !field.getModifiers().contains(JavaModifier.STATIC))
			.filter((field) -> !field.getModifiers().contains(JavaModifier.FINAL))
			.map((field) -> field.getName())
			.collect(Collectors.toCollection(TreeSet::new));
		assertThat(fields).hasSizeLessThanOrEqualTo(13);
		assertThat(mutable).containsExactly("wantRunning");
	}

}
