"""What the test packages share: the fakes and the books they are written against.

Conftests hold fixtures and are never imported; a helper, a constant or a builder that more than
one test module needs lives here (or, when only one package needs it, in a plain module of that
package), and conftests import it like any test does.

    fakes.py        ``scripted(role, task)``: the fake model (the offline provider) and the stub
                    server's routing responder answer one role's task from a script; the shared
                    ``write_offline`` / ``write_ready`` of a chapter
    stub_server.py  a local stub of the OpenAI chat-completions API (real sockets, real JSON)
    marked_book.py  the eight-chapter marked book and its fine outlines (context, flow, quality)
    qingyun.py      the three-chapter book with confirmed cards (worker, post-chapter extraction)
    cards.py        card builders and the committed 西游记 work (knowledge, works)
    plans.py        a valid plan for a 30-chapter book, stage by stage (planning)
"""
