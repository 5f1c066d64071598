"""The base of every body read from an outside service.

The services add fields over time and their published descriptions lag behind: a body is read
for the fields the bot uses, and whatever else it holds is ignored rather than refused.
"""

from pydantic import BaseModel, ConfigDict


class Tolerant(BaseModel):
    model_config = ConfigDict(extra="ignore")
