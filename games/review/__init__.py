"""The site's side of the post-match analysis (the pure core is games.analysis): the queue of analysis jobs
(jobs), the worker that runs them (worker; manage.py run_analysis), their news to the replay pages (news), and
what the replay and the history show of a stored analysis (present, queries).

Nothing of an analysis exists before its match finished: a job is made only for a finished match, the worker
checks it again, and the replay's socket group is joined only for a finished match the person may watch."""
