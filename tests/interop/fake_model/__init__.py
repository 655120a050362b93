"""A fake model server on a loopback port that speaks just enough of each agent's API.

``server.FakeModelServer`` records every request and answers it through a protocol adapter
(``anthropic``: Messages with streaming; ``openai_responses``: the Responses API;
``gemini``: generateContent and streamGenerateContent). What the model "says" is decided by
a ``Policy``: a function from the ``Exchange`` (the request, read into protocol-independent
terms) to a ``Reply`` (``Say`` text or ``CallTool``).
"""
