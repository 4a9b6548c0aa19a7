"""The start-up heap is frozen out of the garbage collector's full collections."""

import gc

from chatbot.runtime.heap import freeze_startup_heap


class _Marker:
    pass


def test_freeze_startup_heap_exempts_objects_alive_at_startup() -> None:
    before = _Marker()
    try:
        frozen = freeze_startup_heap()
        assert frozen > 0 and gc.get_freeze_count() > 0  # (other threads may free some since)
        after = _Marker()
        tracked = [o for o in gc.get_objects() if isinstance(o, _Marker)]
        # a collection walks what was made since, not what was alive at start-up
        assert any(o is after for o in tracked)
        assert not any(o is before for o in tracked)
    finally:
        gc.unfreeze()
