"""Works, chapters, canonical prose blocks with revisions, import (拆书) and export (spec 01)."""
