"""Reading images and videos safely. The only place (with batch/judge/cli) that touches files."""

from .image import as_rgb, load_image

__all__ = ["as_rgb", "load_image"]
