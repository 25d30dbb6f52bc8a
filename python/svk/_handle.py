"""What every object holding a libsvk handle (in self._h) shares: `with`
closes it, and so does the garbage collector, for a caller who forgot."""


class Owned:
    def close(self):
        raise NotImplementedError

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if getattr(self, "_h", None) is not None:
            self.close()
