-- Migration number: 0001 	 2024-03-01T15:17:12.235Z
INSERT INTO users (username, name, email) VALUES ('admin', 'Ada Min', 'admin@example.com');
