"""Batch scoring: manifests in, resumable results files out (process pool, serial or Ray)."""

from .lock import ResultsLock, ResultsLockedError
from .manifest import Manifest, ManifestError, load_manifest, write_manifest
from .runner import RunSummary, run_manifest, run_samples
from .store import ResultWriter, comparable, load_results, make_record, read_records, write_records

__all__ = [
    "Manifest", "ManifestError", "ResultWriter", "ResultsLock", "ResultsLockedError", "RunSummary", "comparable",
    "load_manifest", "load_results", "make_record", "read_records", "run_manifest", "run_samples", "write_manifest",
    "write_records",
]
