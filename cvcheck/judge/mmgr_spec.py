"""MMGR's VLM-judged tasks as data: metrics, rubric questions (our wording; the paper
gives none), gate requirements, gate composites and ARC's cascade.

Every metric is answered under its MMGR name in snake_case. ``required`` is the value
the gated overall needs (``None``: diagnostic only). Metric polarity follows the paper:
``maze_changed``, ``cross_wall``, ``clues_changed`` and ``constraint_violation`` are
failure modes (1 = bad); every other binary metric is 1 = good.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping


@dataclass(frozen=True)
class Metric:
    name: str
    question: str
    required: float | None          #: value the overall needs; None = not gating
    kind: str = "binary"            #: "binary" (0/1) or "fraction" ([0, 1])
    video_only: bool = False        #: N/A for images (e.g. Action Reflection)
    geometric: bool = False         #: may be computed from trajectories instead of judged
    video_question: str = ""        #: the video variant of ``question`` (default: the same)

    def ask(self, modality: str) -> str:
        return self.video_question if modality == "video" and self.video_question else self.question


@dataclass(frozen=True)
class TaskSpec:
    task: str
    title: str
    role: str                        #: the judge's role sentence
    metrics: tuple[Metric, ...]
    composites: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    cascade: tuple[str, ...] = ()
    video_only: bool = False

    @property
    def required(self) -> tuple[Metric, ...]:
        return tuple(m for m in self.metrics if m.required is not None)


def _m(name: str, question: str, required: float | None, **kw: object) -> Metric:
    return Metric(name, question, required, **kw)  # type: ignore[arg-type]


_AR = ("Does the video show explicit exploration or self-correction (backtracking, revising earlier steps) rather than "
       "one direct, non-reflective progression?")

MAZE = TaskSpec("maze-vlm", "T1 Maze (VLM)",
    "You grade a generated solution to a maze: black walls, white corridors, a green start square and a red goal "
    "square; the solution is drawn in blue (image) or the green square moves (video).",
    (
        _m("maze_changed",
           "Does the maze differ from the reference: any wall added, removed or moved, or the red goal moved?", 0,
           video_question="In any frame, is the maze altered: any wall added, removed or moved, or the red goal "
                          "moved?"),
        _m("cross_wall", "Does the blue path touch or cross a black wall anywhere?", 0,
           video_question="In any frame, or between consecutive frames, does the green square touch or cross a "
                          "black wall?"),
        _m("target_achievement", "Does one continuous blue path connect the green start to the red goal?", 1,
           video_question="Does the green square reach the red goal and stay on it at the end of the video "
                          "(passing through and leaving does not count)?"),
        _m("action_reflection", _AR, None, video_only=True),
    ))

SUDOKU = TaskSpec("sudoku-vlm", "T2 Sudoku (VLM)",
    "You grade a generated Sudoku solution against the puzzle's given clues and its ground-truth solved grid.",
    (
        _m("clues_changed", "Is any pre-filled clue modified, removed or displaced?", 0,
           video_question="In any frame, is any pre-filled clue modified, removed or displaced?"),
        _m("constraint_violation",
           "In the final grid, what fraction (0 to 1) of the row, column and box constraints is violated? "
           "Answer 0 when every constraint holds.", 0, kind="fraction"),
        _m("completion_accuracy",
           "What fraction (0 to 1) of the originally empty cells is filled with the ground-truth digit in the "
           "final grid?", 1, kind="fraction"),
        _m("action_reflection",
           "Does the video correct earlier entries (reflection), rather than filling all cells at once?", None,
           video_only=True),
    ))

ARC = TaskSpec("arc", "T3 ARC",
    "You grade a generated answer to an ARC (abstraction and reasoning) puzzle, given the demonstration pairs, the "
    "test input and the ground-truth output grid.",
    (
        _m("pattern_recognition",
           "Does the output show that the transformation rule of the demonstrations was identified?", None),
        _m("grid_integrity",
           "Does the output keep the correct grid dimensions and structure (no distortion or misalignment)?", None),
        _m("color_accuracy", "Are all colours applied correctly according to the transformation rule?", None),
        _m("valid_solution", "Does the final output grid match the ground-truth output exactly, cell for cell?", 1),
    ),
    cascade=("grid_integrity", "pattern_recognition", "color_accuracy", "valid_solution"))

MATH = TaskSpec("math", "T4 Math",
    "You grade a generated worked solution to a math problem against its ground-truth answer.",
    (
        _m("final_correctness", "Does the final answer match the ground-truth answer?", 1),
        _m("intermediate_correctness",
           "Are all intermediate reasoning steps logically valid and mathematically sound?", 1),
        _m("action_reflection",
           "Does the video show self-correction (revising steps or reconsidering the approach)?", None,
           video_only=True),
    ))

_NAV_JUDGED = (
    _m("object_semantic",
       "Does the agent avoid every collision with or penetration of solid structures (walls, furniture, "
       "appliances)?", 1),
    _m("agent_consistency", "Is there exactly one agent, moving smoothly and continuously across all frames?", 1),
    _m("spatial_alignment",
       "Do heading, motion direction and elevation changes stay coherent with the layout (start identifiable, "
       "initial facing matches the first movement)?", 1),
    _m("destination_integrity",
       "Does the red-marked target stay unchanged (size, position, texture), with no hallucinated alternative, "
       "and does the agent stop within it?", 1),
    _m("scene_consistency",
       "Does the environment stay static: nothing appears, disappears, deforms or shifts across frames?", 1),
)
_SS3D = _m("success_score_3d", "Is the agent's final 3D position inside the target volume?", 1, geometric=True)
_OS3D = _m("oracle_success_score_3d",
           "Does the trajectory ever come within the proximity threshold of the target?", 1, geometric=True)
_SS2D = _m("success_score_2d",
           "Does the agent's final position on the 2D overhead map lie entirely inside the goal footprint?", 1,
           geometric=True)
_OS2D = _m("oracle_success_score_2d",
           "Does the path on the 2D map ever touch or intersect the goal region?", 1, geometric=True)
_TRAJ = _m("trajectory_alignment",
           "Does the 2D projected route correspond to the 3D motion path (major turns and transitions)?", 1)
_PHYS = ("object_semantic", "agent_consistency", "spatial_alignment")
_NAV_ROLE = ("You grade a generated embodied-navigation episode: an agent must travel to a red-marked destination "
             "in a scene.")

NAV_LAST_MILE = TaskSpec("nav-last-mile", "T5 Last-Mile Navigation", _NAV_ROLE, (_SS3D, _OS3D) + _NAV_JUDGED,
    {"success_3d_original_destination": ("success_score_3d", "destination_integrity", "scene_consistency"),
     "physics_validness": _PHYS})
NAV_TOP_DOWN = TaskSpec("nav-top-down", "T6 Top-down Navigation", _NAV_ROLE, (_SS2D, _OS2D) + _NAV_JUDGED,
    {"success_2d_original_destination": ("success_score_2d", "destination_integrity", "scene_consistency"),
     "physics_validness": _PHYS})
NAV_3D = TaskSpec("nav-3d", "T7 3D Real-World Navigation", _NAV_ROLE, (_SS3D, _OS3D) + _NAV_JUDGED,
    {"success_3d_original_destination": ("success_score_3d", "destination_integrity", "scene_consistency"),
     "physics_validness": _PHYS})
NAV_SLAG = TaskSpec("nav-slag", "T8 SLAG", _NAV_ROLE, (_SS2D, _OS2D, _SS3D, _OS3D, _TRAJ) + _NAV_JUDGED,
    {"success_3d_original_destination": ("success_score_3d", "destination_integrity", "scene_consistency"),
     "physics_validness": _PHYS})

_PHYSICS = (
    _m("physics_accuracy",
       "Does the motion obey gravity, momentum and friction, with plausible interactions (nothing floats, no "
       "impossible speeds or trajectories, true to the scenario's physics focus)?", 1),
    _m("motion_quality",
       "Is the motion temporally coherent and natural: smooth, continuous, no jerks or discontinuities?", 1),
    _m("visual_realism",
       "Is the video visually believable: realistic objects and materials, consistent lighting and shadows, no "
       "significant artifacts?", 1),
    _m("prompt_adherence",
       "Does the video match the prompt: key objects and setting present, the described action happens?", 1),
)
_PHYS_ROLE = "You are a physics-aware video analysis expert grading a generated video against its prompt."
PHYSICS_CONCEPTS = TaskSpec("physics-concepts", "T9 Physical Concepts", _PHYS_ROLE, _PHYSICS, video_only=True)
PHYSICS_SPORTS = TaskSpec("physics-sports", "T10 Sports", _PHYS_ROLE, _PHYSICS, video_only=True)

def rubric_fingerprint(spec: TaskSpec) -> str:
    """A short hash of a task's role and questions (recorded with every judged result)."""
    import hashlib
    import json

    blob = json.dumps([spec.role, [(m.name, m.question, m.video_question, m.kind) for m in spec.metrics]])
    return hashlib.sha256(blob.encode()).hexdigest()[:12]


SPECS: dict[str, TaskSpec] = {s.task: s for s in (
    MAZE, SUDOKU, ARC, MATH, NAV_LAST_MILE, NAV_TOP_DOWN, NAV_3D, NAV_SLAG, PHYSICS_CONCEPTS, PHYSICS_SPORTS)}
