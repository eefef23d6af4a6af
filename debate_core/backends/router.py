"""Per-seat models: which backend serves which agent.

What it does: ``BackendRouter(default, by_agent={...}, by_role={...})`` picks
the backend for an agent: its own if named in ``by_agent``, else its role's
if named in ``by_role``, else ``default``. The kernel groups each step's
requests by backend, so a debate can put a fine-tuned listener, a larger
speaker and an API judge at one table, each backend still getting one batch
per step. Public tokens are counted with the default backend's tokenizer.

What it does not do: generate anything itself, or decide roles (protocols do).
"""

from __future__ import annotations

from collections.abc import Mapping

from debate_core.backends.base import Backend, Capability


class BackendRouter:
    """The backends of one debate, by agent and by role, with a default."""

    def __init__(
        self,
        default: Backend,
        *,
        by_agent: Mapping[str, Backend] | None = None,
        by_role: Mapping[str, Backend] | None = None,
    ) -> None:
        self.default = default
        self.by_agent = dict(by_agent or {})
        self.by_role = dict(by_role or {})

    def backend_for(self, agent: str, role: str | None = None) -> Backend:
        if agent in self.by_agent:
            return self.by_agent[agent]
        if role is not None and role in self.by_role:
            return self.by_role[role]
        return self.default

    @property
    def backends(self) -> tuple[Backend, ...]:
        """Every distinct backend, the default first."""
        seen: dict[int, Backend] = {id(self.default): self.default}
        for backend in (*self.by_agent.values(), *self.by_role.values()):
            seen.setdefault(id(backend), backend)
        return tuple(seen.values())

    @property
    def model_id(self) -> str:
        """The default model's id, followed by the others' when seats use several."""
        ids = list(dict.fromkeys(b.model_id for b in self.backends))
        return ids[0] if len(ids) == 1 else f"{ids[0]} (+ {', '.join(ids[1:])})"

    def capabilities_for(self, agent: str, role: str | None = None) -> frozenset[Capability]:
        return self.backend_for(agent, role).capabilities

    def count_tokens(self, text: str) -> int:
        return self.default.count_tokens(text)

    def release(self, debate_id: str) -> None:
        for backend in self.backends:
            backend.release(debate_id)
