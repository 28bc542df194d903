"""The agent memory lifecycle: the layout of the tree, the brain, the agent loop and its jobs.

Everything here reaches storage only through `api.MemoryEngine`.
"""

from tinymemory.lifecycle.agent import AgentMemory, TurnLog
from tinymemory.lifecycle.brain import Brain, IngestReport
from tinymemory.lifecycle.jobs import BackgroundJob, JobReport
from tinymemory.lifecycle.layout import MemoryLayout

__all__ = ["AgentMemory", "BackgroundJob", "Brain", "IngestReport", "JobReport", "MemoryLayout", "TurnLog"]
