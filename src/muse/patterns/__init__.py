"""Pattern cards (范式), their per-work bindings and the style profile (文风) — spec 001 §1A stage 3.

Public pattern cards belong to no work (``work_id`` NULL, the spec's "work 0"); a work may also
keep private ones. A work uses a pattern only through a binding, and a binding exists only once
the author confirmed the assembly (装配) that chose it: the context builder reads
:func:`muse.patterns.bindings.load_bound_patterns` and
:func:`muse.patterns.bindings.load_confirmed_style`, which never see anything unconfirmed.
"""
