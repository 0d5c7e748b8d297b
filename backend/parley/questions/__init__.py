"""Questions put to the person, and their answers: one home for each step of a question's life.

A question is a `kind=question` message plus a `questions` row (status, answer, deadline).
An agent's question (`ask_user`, a child's `ask_parent`) and a work session's permission
request (asked by the session's run agent, the tool call in the question's
`meta.permission`) are asked by one `ask.ask`; every answer (the REST route, a
notification's button, a plain reply in a work conversation) is taken by one
`answer.answer`. Each moves through one state machine (`status`): open, then exactly one
of answered, timed_out or closed. What nobody answers in time is `expiry`'s, reminded and
defaulted by `escalation`; the person's words are read by `words`; the SQL is `store`'s.

Below `runs`, `work`, `push` and `tools`, which call it: it places an agent's question
through the caller's own write rules (`ask.Place`) and hands a permission decision to the
caller's sessions (`answer.Sessions`), so it imports none of them.
"""
