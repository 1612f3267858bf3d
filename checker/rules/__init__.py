"""The rule registry: the classes of the implemented rules, ``ALL_RULES``.

Importing it imports every rule, and with them libcst and the analysis; what needs
only the codes, names and defaults reads :mod:`checker.spec.catalog` instead (the codes
not implemented yet, ``PLANNED``, are kept there).
"""

from __future__ import annotations

from checker.rules.aig101_unproxyable_parameter import UnproxyableParameter
from checker.rules.aig102_hard_error_parameter import HardErrorParameter
from checker.rules.aig103_autograd_ctx_parameter import AutogradCtxParameter
from checker.rules.aig104_unproxyable_call_argument import UnproxyableCallArgument
from checker.rules.aig105_undocumented_parameter_type import UndocumentedParameterType
from checker.rules.aig201_unproxyable_return import UnproxyableReturn
from checker.rules.aig202_baked_scalar_return import BakedScalarReturn
from checker.rules.aig203_untraceable_tensor_subclass import UntraceableTensorSubclass
from checker.rules.aig301_captured_tensor import CapturedTensor
from checker.rules.aig302_captured_mutable_state import CapturedMutableState
from checker.rules.aig303_laundered_capture import LaunderedCapture
from checker.rules.aig401_recreated_closure import RecreatedClosure
from checker.rules.aig402_ineffective_registration import IneffectiveRegistration
from checker.rules.aig403_callable_instance import CallableInstance
from checker.rules.aig404_registration_in_compiled_region import RegistrationInCompiledRegion
from checker.rules.aig405_not_callable import NotCallable
from checker.rules.aig406_conflicting_markers import ConflictingMarkers
from checker.rules.aig407_private_api import PrivateApi
from checker.rules.aig501_trace_time_side_effect import TraceTimeSideEffect
from checker.rules.aig502_data_dependent_python import DataDependentPython
from checker.rules.aig503_needs_custom_op import NeedsCustomOp
from checker.rules.aig900_parse_error import ParseError
from checker.rules.base import Rule, RuleFinding, report
from checker.spec.catalog import PLANNED

ALL_RULES: tuple[type[Rule], ...] = (
    UnproxyableParameter,
    HardErrorParameter,
    AutogradCtxParameter,
    UnproxyableCallArgument,
    UndocumentedParameterType,
    UnproxyableReturn,
    BakedScalarReturn,
    UntraceableTensorSubclass,
    CapturedTensor,
    CapturedMutableState,
    LaunderedCapture,
    RecreatedClosure,
    IneffectiveRegistration,
    CallableInstance,
    RegistrationInCompiledRegion,
    NotCallable,
    ConflictingMarkers,
    PrivateApi,
    TraceTimeSideEffect,
    DataDependentPython,
    NeedsCustomOp,
    ParseError,
)

RULES_BY_CODE: dict[str, type[Rule]] = {rule.code: rule for rule in ALL_RULES}

__all__ = ["ALL_RULES", "PLANNED", "RULES_BY_CODE", "Rule", "RuleFinding", "report"]
