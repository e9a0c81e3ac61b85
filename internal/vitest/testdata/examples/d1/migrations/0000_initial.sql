-- Migration number: 0000 	 2024-03-01T15:05:23.955Z
CREATE TABLE users (
	username TEXT PRIMARY KEY,
	name TEXT NOT NULL,
	email TEXT NOT NULL
);
CREATE TABLE posts (
	slug TEXT PRIMARY KEY,
	author TEXT NOT NULL,
	body TEXT NOT NULL,
	FOREIGN KEY (author) REFERENCES users(username)
);
-- Migration ends here
