"""Deterministic navigation metrics (MMGR Geo-Align and View-Syn suites)."""

from .metrics import (
    absolute_trajectory_error,
    dtw_distance,
    final_distance_error,
    final_heading,
    geo_align,
    heading_error,
    ndtw,
    oracle_success,
    path_length,
    relative_pose_error,
    resample_by_arclength,
    sdtw,
    spl,
    success,
)
from .viewsyn import normalize_distance, psnr, ssim

__all__ = [
    "absolute_trajectory_error", "dtw_distance", "final_distance_error", "final_heading", "geo_align",
    "heading_error", "ndtw", "normalize_distance", "oracle_success", "path_length", "psnr",
    "relative_pose_error", "resample_by_arclength", "sdtw", "spl", "ssim", "success",
]
