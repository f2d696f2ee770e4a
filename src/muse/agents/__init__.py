"""Role contracts, model policy, prompts, providers, read-only tools, dispatch (spec 003).

Every model call in Muse goes through :func:`muse.agents.dispatch.dispatch`. The public surface:

    dispatch.dispatch / DispatchResult           one role call → validated output + receipt id
    roles.yaml, contracts.load_roles             the five roles, tasks, tool and model policies
    policy                                       model allowed? reported id equal to frozen id?
    tools.ToolSet, asof_reader.AsOfReader        read-only tools over a frozen view
    ledger.dependency_list / tool_read_log       the run's tool reads
    receipts.get_receipt / run_receipts          stored receipts (model_calls)
    providers.resolve_provider / register_provider
    providers.offline.register_offline_generator offline output for a domain's own task
    config / probe                               the author's config file; `muse models`

Only ``providers/openai_compatible.py`` imports the ``openai`` SDK.
"""
