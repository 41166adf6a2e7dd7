"""Deterministic navigation metrics (MMGR Geo-Align and View-Syn suites).

LPIPS, FID and FVD (``perceptual``) need PyTorch (extra ``perceptual``) only when called.
"""

from .association import associate
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
from .perceptual import fid, frechet_distance, fvd, lpips
from .viewsyn import data_range_of, normalize_distance, psnr, ssim

__all__ = [
    "absolute_trajectory_error", "associate", "data_range_of", "dtw_distance", "fid", "final_distance_error",
    "final_heading", "frechet_distance", "fvd", "geo_align", "heading_error", "lpips", "ndtw",
    "normalize_distance", "oracle_success", "path_length", "psnr", "relative_pose_error",
    "resample_by_arclength", "sdtw", "spl", "ssim", "success",
]
