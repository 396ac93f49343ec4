"""Reading a question, one part per module (issue 10: split by what each part understands).

:func:`bot.core.parsing.parse` runs them in order over the normalised text, each blanking what it
consumed so a later reader cannot misread it (a card number is never a budget, "8k context" is
never $8,000):

* :mod:`.text` - shared pieces: ASCII-mode regexes, the number pattern, blanking;
* :mod:`.numbers` - sequence length, image resolution, batch size, card counts ("2x", "dual");
* :mod:`.budgets` - amounts and currencies, ranges, per-card budgets, conversion to dollars;
* :mod:`.settings` - precision, method, task, optimizer, parallelism and the training knobs;
* :mod:`.intent` - what kind of question it is, from the names found and the intent words;
* :mod:`.names` - the matched names resolved: families asked back, typos, "a 7b model",
  unknown names said.

Context and follow-ups are :mod:`bot.core.conversation`; the later refinements (speed, time,
serving: :mod:`bot.core.understand_time`; several cards: :mod:`bot.core.understand_multi`) read
the Query these produce.
"""
