"""The baseline of a whole-process walk: `python bench/raw_walk.py URL NUMBER QUERY_FILE` walks a
démarche's dossiers with bare httpx calls and prints how many it saw; nothing else is imported."""

import asyncio
import sys

import httpx


async def walk(url: str, number: int, query: str, token: str) -> int:
    seen, after = 0, None
    async with httpx.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60) as http:
        while True:
            response = await http.post(url, json={"query": query, "operationName": "getDemarche",
                                                  "variables": {"demarcheNumber": number, "after": after}})
            dossiers = response.json()["data"]["demarche"]["dossiers"]
            seen += len(dossiers["nodes"])
            if not dossiers["pageInfo"]["hasNextPage"]:
                return seen
            after = dossiers["pageInfo"]["endCursor"]


if __name__ == "__main__":
    url, number, query_file, token = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    with open(query_file) as query:
        print(asyncio.run(walk(url, number, query.read(), token)))
