"""Graph transforms: each takes the graph under construction and mutates it, one module each.

The builders (graph/builder.py) run them in a fixed order per operation; the order matters
and each builder's list says why each step stands where it does.
"""
from __future__ import annotations

from .base import BuildContext, Transform, parse_targets
from .config import ConfigTransformer
from .orphans import OrphanResourceTransformer
from .diff import DiffTransformer
from .module_expansion import ModuleExpansionTransformer
from .references import ReferenceTransformer
from .instance_references import InstanceReferenceTransformer
from .providers import ProviderTransformer
from .dependencies import AttachDependenciesTransformer
from .destroy_edges import DestroyEdgeTransformer
from .destroy import DestroyChangesTransformer, DestroyPlanTransformer
from .targets import TargetsTransformer, ExcludeTransformer
from .root import RootTransformer
from .reduction import TransitiveReductionTransformer
from .validation import CycleValidationTransformer, SelfReferenceTransformer

__all__ = ["BuildContext", "Transform", "parse_targets", "ConfigTransformer", "OrphanResourceTransformer", "DiffTransformer", "ModuleExpansionTransformer", "ReferenceTransformer", "InstanceReferenceTransformer", "ProviderTransformer", "AttachDependenciesTransformer", "DestroyEdgeTransformer", "DestroyChangesTransformer", "DestroyPlanTransformer", "TargetsTransformer", "ExcludeTransformer", "RootTransformer", "TransitiveReductionTransformer", "CycleValidationTransformer", "SelfReferenceTransformer"]
