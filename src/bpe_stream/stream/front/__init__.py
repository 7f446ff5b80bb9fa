"""The prepend engine: exact counts of a text that grows (and is cut) at the front.

Reached only through :class:`~bpe_stream.PrependableEncoder`.  :mod:`.text_prependable`
holds the engine (``TextPrependable``); the other modules are its records: saved states
of long first pieces (:mod:`.words`, :mod:`.runs`, :mod:`.merges`, :mod:`.digits`,
:mod:`.periods`, :mod:`.known`, :mod:`.alts`), the text kept from the end
(:mod:`.text`) and the boundaries of earlier splits (:mod:`.boundary_stack`).
"""
