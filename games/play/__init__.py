"""The single home of a match being played, a file per role (see the README's "How a move travels").

Pure decisions: snapshot (the data), decide (every decide_*), clock, finish, bots, access, meta, wording.
The database: store (load and commit), create (new matches, rematches, imports), presence, bot_accounts.
Between processes: news. One change from sync code: sync. The live core: hub, owner, socket, frames, page.
"""
