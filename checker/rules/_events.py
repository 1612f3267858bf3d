"""Shared by the body rules: the events of one kind, with the function they occur in."""

from __future__ import annotations

from collections.abc import Iterator

from checker.facts.captures.bodies import Event, EventKind
from checker.facts.module import ModuleFacts
from checker.rules import _wording as words
from checker.spec.messages import Function


def events_of(facts: ModuleFacts, kind: EventKind) -> Iterator[tuple[Function, Event]]:
    for body, event in facts.events:
        if event.kind is kind:
            yield words.function(body), event
