"""Stage 3, judging: the blind judge input, the judges and the runs that drive them.

May import every earlier stage and :mod:`agenthorizon.scoring` (a run scores
itself through the one scoring path); judges themselves see only the blind
input built by :func:`agenthorizon.judging.inputs.build_judge_input`.
"""
