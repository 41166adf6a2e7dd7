"""GGBench judge prompts (our wording of the upstream rubrics; same scales and output
formats). Users who need upstream's exact wording pass their own template files."""

TEXT = """You evaluate the text construction steps a model wrote for a geometric construction problem.
Compare the model's steps with the reference steps. Judge: completeness of the reasoning chain (clear
order, no skipped steps, explicit dependencies); coverage of the key constructions the problem needs;
soundness of every step under geometric principles; agreement with the reference, accepting any
equivalent construction that reaches the required objects and constraints. Ignore stylistic variation.
Scale: 5 complete and rigorous, equivalent to the reference, no geometric error; 4 correct overall with
minor omissions that do not affect the result; 3 most key points but a critical step missing or a fixable
error; 2 many logical errors or off the problem's intent; 1 inconsistent, wrong or not reproducible.
Output only one digit from 1 to 5.

Problem:
{problem}

Reference steps:
{reference_answer}

Model's steps:
{model_answer}
"""

IMAGE = """You compare two images of a geometric construction: first the reference answer, then the model's
final diagram. Judge whether the key elements the problem needs are present (points, segments, circles,
tangency points, tangents, labels) and whether relative positions and relations (perpendicular, parallel,
tangent, concyclic, collinear, angles, ratios) are correct. Do not penalise line width, colour, fonts or
similarity transforms (translation, rotation, uniform scale, mirroring); geometric correctness outweighs
visual similarity.
Scale: 5 elements, topology and constraints consistent; 4 basically consistent, slight deviations;
3 mostly consistent with several minor errors; 2 only partly consistent, key elements missing or clear
constraint errors; 1 inconsistent, key elements missing, or the image is missing/unusable.
Output only one digit from 1 to 5."""

MID = """You evaluate a model's step-by-step geometric construction shown as one long image (problem text,
then each step's instruction with its drawing), given the problem text. Score three dimensions, each 1-5:
Step Accuracy: does each step drawing match its instruction exactly (names, elements, positions, no
extra or missing elements)? 5 perfect match ... 1 structure wrong or unrelated to the text.
Process Consistency: does each step build on the previous figure (no skipped or disconnected steps)?
5 fully cumulative ... 1 steps unrelated; a single figure or missing intermediate figures score 1.
Problem-Solution Accuracy: does the final figure visibly and verifiably solve the problem? 5 fully ...
1 invalid or unrenderable; at most 2 if correctness cannot be seen in the figure.
Output exactly these lines and nothing else:
Step Accuracy: <1-5>
Process Consistency: <1-5>
Problem-Solution Accuracy: <1-5>
Rationale: <one line>"""
