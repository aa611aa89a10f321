"""Graph builders: each operation's graph is the result of an ordered list of transforms.

The order is the design: a comment at each step says why it stands where it does.
"""
from __future__ import annotations

import sys
from typing import Any

from tfconsole.diags import Diagnostics

from .dag import Graph
from .transforms import (
    AttachDependenciesTransformer, ConfigTransformer, CycleValidationTransformer,
    DestroyChangesTransformer, DestroyEdgeTransformer, DestroyPlanTransformer, DiffTransformer, ExcludeTransformer, InstanceReferenceTransformer, ModuleExpansionTransformer,
    OrphanResourceTransformer, ProviderTransformer, ReferenceTransformer, RootTransformer,
    SelfReferenceTransformer, TargetsTransformer, Transform, TransitiveReductionTransformer,
)

from .nodes.base import DynamicExpandable
from .transforms.ephemeral_close import EphemeralCloseTransformer
from .transforms.imports import MissingImportTargetsTransformer
from .transforms.provider_values import ProviderValuesTransformer
from .transforms.expand import ExpandInstancesTransformer, ExpandOrphansTransformer, ValidateInstancesTransformer


def _debug_log() -> Any:
    """The "tfconsole.graph" logger when it logs at debug level, else None. A program that never
    imported `logging` cannot have configured it, so the module (~4 ms of start-up) is not
    imported just to learn that."""
    logging = sys.modules.get("logging")
    if logging is None:
        return None
    # another thread may be importing it right now (a provider plugin's client does, during a
    # walk): a module still being executed is in sys.modules without all its names yet
    if getattr(getattr(logging, "__spec__", None), "_initializing", False):
        return None
    try:
        log = logging.getLogger("tfconsole.graph")
        return log if log.isEnabledFor(logging.DEBUG) else None
    except (AttributeError, NameError):  # (the same, should the import machinery not say so)
        return None


def plan_steps() -> list[Transform]:
    return [
        # 1. One vertex per configuration object; resources stay config-level and expand
        #    into instances only when walked (count/for_each may depend on other values).
        ConfigTransformer(),
        # 1b. Import blocks with for_each whose target has no configuration: their keys are
        #     checked against a resource without count / for_each, as Terraform does at plan.
        MissingImportTargetsTransformer(plan=True),
        # 2. Resources in state with no configuration become orphan (delete) vertices.
        OrphanResourceTransformer(),
        # 3. Everything inside a module waits for that module's count/for_each expansion.
        ModuleExpansionTransformer(),
        # 4. A resource may not refer to itself; say so before it shows up as a cycle.
        SelfReferenceTransformer(),
        # 5. References (and depends_on) become "happens after" edges.
        ReferenceTransformer(),
        # 6. Provider configurations: resources depend on the provider they resolve to.
        ProviderTransformer(),
        # 7. Once all dependency edges exist, each resource records what it depends on (state).
        AttachDependenciesTransformer(),
        # 8. -target prunes to the targets and their dependencies; needs the full edge set.
        TargetsTransformer(),
        # 8b. -exclude removes excluded resources and their dependents (after targeting, so
        #     both flags combine as an intersection).
        ExcludeTransformer(),
        # 8c. Each ephemeral resource closes after everything that depends on it (so after the
        #     edges above, and after targeting has decided what stays).
        EphemeralCloseTransformer(),
        # 9. A single root so the walk has one end.
        RootTransformer(),
        # 10. Cycles are reported with every member, before reduction could hide them.
        CycleValidationTransformer(),
        # 11. Drop redundant edges (keeps the walk and the DOT output small).
        TransitiveReductionTransformer(),
    ]


def apply_steps() -> list[Transform]:
    return [
        # 1. Named values, module expansion and a config-level barrier per resource.
        ConfigTransformer(apply=True),
        # 2. The planned changes: create/update/read vertices, destroy vertices, replace split in two.
        DiffTransformer(),
        # 3. Module contents wait for their module's expansion.
        ModuleExpansionTransformer(),
        # 4. Named values and barriers reference what they use.
        ReferenceTransformer(),
        # 5. Instances reference instances where the reference names one, else the barrier.
        InstanceReferenceTransformer(),
        # 6. Providers before anything that uses them.
        ProviderTransformer(),
        # 7. Dependencies for state, from the edges above.
        AttachDependenciesTransformer(),
        # 8. Destroys in reverse dependency order (needs the dependencies above).
        DestroyEdgeTransformer(),
        # 8b. Ephemeral resources close after all their dependents (every edge exists by now).
        EphemeralCloseTransformer(),
        # 9. Single root.
        RootTransformer(),
        # 10. Cycles are errors naming their members.
        CycleValidationTransformer(),
        # 11. Redundant edges removed.
        TransitiveReductionTransformer(),
    ]


def plan_destroy_steps() -> list[Transform]:
    """The destroy plan proper (after the quiet refresh walk core.Context runs first)."""
    return [
        # 1. A delete vertex per object in state (with -target: the targets and their dependents).
        DestroyPlanTransformer(),
        # 2. Each delete needs its provider configured (to plan the delete and read schemas).
        ProviderTransformer(),
        # 2b. ...configured as in a plan: the values (ephemeral resources included) its
        #     configuration refers to, once the providers in use are known.
        ProviderValuesTransformer(),
        # 2c. Ephemeral resources close after everything that depends on them.
        EphemeralCloseTransformer(),
        # 3. Single root.
        RootTransformer(),
    ]


def apply_destroy_steps() -> list[Transform]:
    """Applying a destroy plan: only deletes, in reverse dependency order."""
    return [
        # 1. A destroy vertex per planned delete or forget.
        DestroyChangesTransformer(),
        # 2. Providers before anything that uses them.
        ProviderTransformer(),
        # 2b. The values provider configurations refer to (ephemeral resources included).
        ProviderValuesTransformer(),
        # 3. Dependents are destroyed before what they depend on (from the objects' recorded
        #    dependencies), so needs the vertices above.
        DestroyEdgeTransformer(),
        # 3b. Ephemeral resources close after everything that depends on them.
        EphemeralCloseTransformer(),
        # 4. Single root.
        RootTransformer(),
        # 5. Cycles are errors naming their members.
        CycleValidationTransformer(),
        # 6. Redundant edges removed.
        TransitiveReductionTransformer(),
    ]


def validate_steps() -> list[Transform]:
    return [ConfigTransformer(), MissingImportTargetsTransformer(), ModuleExpansionTransformer(),
            SelfReferenceTransformer(), ReferenceTransformer(),
            ProviderTransformer(), RootTransformer(), CycleValidationTransformer()]


def expand_steps() -> list[Any]:
    """A resource's instances once its count / for_each is known (walk time)."""
    return [
        # 1. A vertex per instance the expansion produced (skipped when -target/-exclude drop it).
        ExpandInstancesTransformer(),
        # 2. A delete per instance still in state that the expansion no longer produces; after
        #    the instances, as they decide which keys are live.
        ExpandOrphansTransformer(),
    ]


def validate_expand_steps() -> list[Any]:
    """validate: one representative instance per module instance, keys unknown."""
    return [ValidateInstancesTransformer()]


def dynamic_expand(v: Any, ctx: Any) -> tuple[Graph | None, Diagnostics]:
    """The walk's expand step for a vertex: its expansion's facts, built into a subgraph."""
    if not isinstance(v, DynamicExpandable):
        return None, Diagnostics()
    facts, diags = v.expansion(ctx)
    if facts is None:
        return None, diags
    g, d = build(validate_expand_steps() if facts.validate else expand_steps(), facts, f"expand {v.name}")
    diags.append(d)
    return g, diags


def build(steps: list[Any], b: Any, name: str) -> tuple[Graph, Diagnostics]:
    """Run the steps in order on a new graph; `b` is what they build from (a BuildContext, or
    a vertex's ExpandFacts), its `diags` what they report."""
    g = Graph()
    log = _debug_log()
    for step in steps:
        step.transform(g, b)
        if log is not None:
            log.debug("%s graph after %r:\n%s", name, step, g.string())
        if b.diags.has_errors and isinstance(step, (CycleValidationTransformer, SelfReferenceTransformer)):
            break
    return g, b.diags
