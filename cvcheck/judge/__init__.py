"""Judged tasks: an OpenAI-compatible cached judge client and the benchmark adapters
(MMGR VLM-judged gates, MM-Vet, MARVEL, GGBench) behind cvcheck's result schema."""

from .cache import JudgeCache, request_key
from .client import JudgeClient, JudgeReply, JudgeRequest
from .content import image_part, text_part, user_message

__all__ = ["JudgeCache", "JudgeClient", "JudgeReply", "JudgeRequest", "image_part", "request_key",
           "text_part", "user_message"]
